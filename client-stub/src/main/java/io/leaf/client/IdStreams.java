package io.leaf.client;

import io.grpc.Context;
import io.grpc.Status;
import io.leaf.v1.FormattedIdBatch;
import io.leaf.v1.IdBatch;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Reads a server stream of ID chunks to its end and checks it held exactly the count asked for.
 *
 * <p>A failed stream is thrown as its gRPC {@link io.grpc.StatusRuntimeException} (for {@link
 * Targets} to fail over on and type), a stream that breaks the contract as an INTERNAL {@link
 * LeafException}.
 */
final class IdStreams {

  /** Room reserved up front for streamed strings; the list grows past it as chunks arrive. */
  private static final int MAX_INITIAL_CAPACITY = 1 << 16;

  private IdStreams() {}

  /** Every ID of the stream {@code open} starts, {@code count} in all, in the order sent. */
  static long[] ids(Supplier<Iterator<IdBatch>> open, int count) {
    return read(
        open,
        stream -> {
          long[] ids = new long[Math.max(count, 0)];
          int n = 0;
          while (stream.hasNext()) {
            IdBatch batch = stream.next();
            int size = batch.getIdsCount();
            if (n + size > ids.length) {
              throw tooMany(count);
            }
            for (int i = 0; i < size; i++) {
              ids[n++] = batch.getIds(i);
            }
          }
          return checked(ids, n, count);
        });
  }

  /** Every formatted number of the stream {@code open} starts, {@code count} in all, in order. */
  static List<String> values(Supplier<Iterator<FormattedIdBatch>> open, int count) {
    return read(
        open,
        stream -> {
          List<String> values = new ArrayList<>(Math.min(Math.max(count, 0), MAX_INITIAL_CAPACITY));
          while (stream.hasNext()) {
            List<String> chunk = stream.next().getValuesList();
            if (values.size() + chunk.size() > count) {
              throw tooMany(count);
            }
            values.addAll(chunk);
          }
          return checked(Collections.unmodifiableList(values), values.size(), count);
        });
  }

  /**
   * Runs {@code read} on the stream {@code open} starts. Leaving early (a reply that breaks the
   * contract) cancels the stream instead of leaving the call open until its deadline.
   */
  private static <B, R> R read(Supplier<Iterator<B>> open, Function<Iterator<B>, R> read) {
    Context.CancellableContext scope = Context.current().withCancellation();
    try {
      return scope.call(() -> read.apply(open.get()));
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      scope.cancel(null);
    }
  }

  private static LeafException tooMany(int count) {
    return new LeafException(
        Status.Code.INTERNAL, "server streamed more than the " + count + " IDs asked for", null);
  }

  private static <R> R checked(R result, int received, int count) {
    if (received != count) {
      throw new LeafException(
          Status.Code.INTERNAL,
          "server streamed " + received + " IDs, " + count + " asked for",
          null);
    }
    return result;
  }
}
