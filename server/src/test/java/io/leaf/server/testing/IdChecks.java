package io.leaf.server.testing;

import java.util.Arrays;

/** The uniqueness and order checks of the concurrency tests, with messages naming the ID. */
public final class IdChecks {

  private IdChecks() {}

  /** Fails unless every ID is larger than the one before it, as one caller must see them. */
  public static void assertIncreasing(long[] ids, String who) {
    for (int i = 1; i < ids.length; i++) {
      if (ids[i] <= ids[i - 1]) {
        throw new AssertionError(who + " saw " + ids[i - 1] + " then " + ids[i]);
      }
    }
  }

  /** Fails if any ID occurs twice across {@code parts}; returns all of them, sorted. */
  public static long[] assertAllDistinct(long[]... parts) {
    long[] all = Arrays.stream(parts).flatMapToLong(Arrays::stream).sorted().toArray();
    for (int i = 1; i < all.length; i++) {
      if (all[i] == all[i - 1]) {
        throw new AssertionError("ID " + all[i] + " issued twice among " + all.length);
      }
    }
    return all;
  }
}
