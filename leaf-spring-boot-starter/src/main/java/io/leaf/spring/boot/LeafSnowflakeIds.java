package io.leaf.spring.boot;

import java.util.Objects;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * Time-ordered IDs from the server's SnowflakeService (no business tag, no local cache): each call
 * is one RPC through the application's {@code LeafClient}, with its deadline, retries and typed
 * errors.
 *
 * <p>Implementations are thread-safe.
 */
public interface LeafSnowflakeIds {

  /** One ID. */
  long nextId();

  /** {@code count} IDs from one stream, in the order the server sent them. */
  long[] nextIds(int count);

  /**
   * IDs from the two calls given, e.g. a client's {@code nextSnowflakeId} and {@code
   * nextSnowflakeIds}.
   */
  static LeafSnowflakeIds of(LongSupplier one, IntFunction<long[]> many) {
    Objects.requireNonNull(one, "one");
    Objects.requireNonNull(many, "many");
    return new LeafSnowflakeIds() {
      @Override
      public long nextId() {
        return one.getAsLong();
      }

      @Override
      public long[] nextIds(int count) {
        return many.apply(count);
      }
    };
  }
}
