package io.leaf.server.uuid;

import io.leaf.server.engine.IdRanges;
import io.leaf.server.snowflake.Snowflake;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Issues this server's version 7 UUIDs, one or a chunk at a time, each from one of its snowflake
 * IDs ({@link UuidLayout}). Thread-safe; never parks a thread.
 *
 * <p>A UUID is a snowflake ID laid out anew, so UUIDs follow the snowflake side's lease, fence and
 * clock rules and fail as it does.
 */
public final class Uuids {

  /*
   * One sequence for both kinds: a UUID takes a snowflake ID (which is then never issued as one),
   * so the persisted floor, the clock rule and the fencing are the snowflake generator's and need
   * no second implementation; the cost is that UUIDs and snowflake IDs share the values of a
   * millisecond (4,096 in the default layout). Random bits come from SecureRandom: 16 bytes per
   * UUID, drawn in one call per chunk, and for unary calls from a pool refilled 4 KB at a time (one
   * SecureRandom call, which takes a lock and on Linux reads /dev/urandom, costs about as much as 2
   * KB of output: per UUID it would be a tenth of a gRPC call).
   */

  private final Snowflake snowflake;
  private final UuidLayout layout;
  private final SecureRandom random;

  /** Random longs not handed out yet, from {@code next} on; guarded by {@code this}. */
  private final long[] pool = new long[POOL_LONGS];

  private int next = POOL_LONGS;
  private static final int POOL_LONGS = 512;

  public Uuids(Snowflake snowflake, SecureRandom random) {
    this.snowflake = snowflake;
    this.layout = new UuidLayout(snowflake.layout());
    this.random = random;
  }

  /** One UUID now, or the reason there is none (see {@link Snowflake#nextId()}). */
  public UUID next() {
    long id = snowflake.nextId();
    long r1;
    long r2;
    synchronized (this) {
      if (next == POOL_LONGS) {
        byte[] bytes = new byte[POOL_LONGS * 8];
        random.nextBytes(bytes);
        ByteBuffer.wrap(bytes).asLongBuffer().get(pool);
        next = 0;
      }
      r1 = pool[next];
      r2 = pool[next + 1];
      // Each value is handed out once: no two UUIDs share random bits by reuse.
      pool[next] = 0;
      pool[next + 1] = 0;
      next += 2;
    }
    return layout.compose(id, r1, r2);
  }

  /** Up to {@code max} UUIDs in increasing order, when the snowflake side has IDs for them. */
  public CompletableFuture<List<UUID>> next(int max) {
    return snowflake.nextIds(max).thenApply(this::compose);
  }

  private List<UUID> compose(IdRanges ids) {
    int n = (int) ids.size();
    byte[] bytes = new byte[16 * n];
    random.nextBytes(bytes);
    ByteBuffer bits = ByteBuffer.wrap(bytes);
    List<UUID> out = new ArrayList<>(n);
    ids.forEach(id -> out.add(layout.compose(id, bits.getLong(), bits.getLong())));
    return out;
  }

  public UuidLayout layout() {
    return layout;
  }

  /**
   * The parts of {@code value}, canonical (36 characters) or ULID (26).
   *
   * @throws IllegalArgumentException neither form, or not a version 7 UUID of variant 10
   */
  public UuidLayout.Parts decode(String value) {
    UUID uuid;
    if (value.length() == 36) {
      uuid = UUID.fromString(value);
    } else if (value.length() == 26) {
      uuid = Ulid.decode(value);
    } else {
      throw new IllegalArgumentException(
          "a UUID has 36 characters (8-4-4-4-12) or 26 (ULID), got " + value.length());
    }
    return layout.decode(uuid);
  }
}
