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
 * IDs ({@link UuidLayout}), so they follow the snowflake side's lease, fence and clock rules and
 * fail as it does. Thread-safe; never parks a thread.
 */
/*
 * One sequence for both kinds: a UUID takes a snowflake ID (which is then never issued as one),
 * so the persisted floor, the clock rule and the fencing are the snowflake generator's and need no
 * second implementation; the cost is that UUIDs and snowflake IDs share the 4,096 values of a
 * millisecond. Random bits come from SecureRandom: 16 bytes per UUID, drawn in one call per
 * chunk.
 */
public final class Uuids {

  private final Snowflake snowflake;
  private final UuidLayout layout;
  private final SecureRandom random;

  public Uuids(Snowflake snowflake, SecureRandom random) {
    this.snowflake = snowflake;
    this.layout = new UuidLayout(snowflake.layout());
    this.random = random;
  }

  /** One UUID now, or the reason there is none (see {@link Snowflake#nextId()}). */
  public UUID next() {
    long id = snowflake.nextId();
    return layout.compose(id, random.nextLong(), random.nextLong());
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
      throw new IllegalArgumentException("a UUID has 36 characters (8-4-4-4-12) or 26 (ULID), got "
          + value.length());
    }
    return layout.decode(uuid);
  }
}
