package io.leaf.server.scattered;

import io.leaf.v1.IdBatch;
import io.leaf.v1.NextIdResponse;

/**
 * The values of a SCATTERED tag: each segment value with its 63 low bits reversed, so distinct
 * segment values stay distinct while consecutive ones land far apart. Pure functions; thread-safe.
 *
 * <p>The mapping is a bijection of the non-negative {@code long}s onto themselves (unique by
 * construction), and its own inverse.
 */
public final class ScatteredIds {

  /*
   * Why bit reversal: increasing keys put every insert on the last range of a range-partitioned
   * table (TiDB, CockroachDB, Spanner); reversing the bits puts the fastest-changing bit of the
   * sequence at the top, so consecutive IDs alternate between the two halves of the key space, then
   * quarters, and so on (Spanner's bit_reversed_positive sequences do the same). The cost: no order
   * at all, and IDs are as long as the key space (sequence 1 is 2^62).
   *
   * Sequence 0 maps to 0; segments start at max_id, which is at least 1, so a tag's IDs are
   * positive.
   */

  private ScatteredIds() {}

  /**
   * The scattered ID of segment value {@code value}.
   *
   * @throws IllegalArgumentException {@code value} is negative
   */
  public static long scatter(long value) {
    if (value < 0) {
      throw new IllegalArgumentException("a segment value must not be negative, got " + value);
    }
    return Long.reverse(value) >>> 1;
  }

  /**
   * The segment value a scattered ID was made from: {@link #scatter} again.
   *
   * @throws IllegalArgumentException {@code id} is negative (no scattered ID is)
   */
  public static long sequence(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("a scattered ID is never negative, got " + id);
    }
    return Long.reverse(id) >>> 1;
  }

  /** NextId's answer with its ID scattered. */
  public static NextIdResponse scatter(NextIdResponse plain) {
    return plain.toBuilder().setId(scatter(plain.getId())).build();
  }

  /** A NextIdBatch chunk with every ID scattered, in the order they were taken. */
  public static IdBatch scatter(IdBatch plain) {
    IdBatch.Builder out = IdBatch.newBuilder();
    for (int i = 0; i < plain.getIdsCount(); i++) {
      out.addIds(scatter(plain.getIds(i)));
    }
    return out.build();
  }
}
