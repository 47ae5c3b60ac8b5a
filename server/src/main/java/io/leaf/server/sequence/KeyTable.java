package io.leaf.server.sequence;

/**
 * The last value of each key in memory of one section, by the key's 64-bit hash: an open-addressed
 * table of two {@code long}s per slot (16 bytes, at most three quarters full), with one
 * second-chance bit per key for eviction.
 *
 * <p>Not thread-safe: its {@link Section} guards it. Two keys with the same hash share one entry,
 * which keeps both strictly increasing (the shared value only grows).
 */
final class KeyTable {

  /* Values are kept shifted left by one, the low bit telling "used since the last sweep". */

  private static final int FIRST_CAPACITY = 8;

  private long[] hashes = new long[0];
  private long[] values = new long[0];
  private int size;

  int size() {
    return size;
  }

  /** The key's last value; 0 when it is not in memory. Marks it used. */
  long get(long hash) {
    if (size == 0) {
      return 0;
    }
    long h = nonZero(hash);
    int mask = hashes.length - 1;
    for (int i = index(h, mask); ; i = (i + 1) & mask) {
      long at = hashes[i];
      if (at == 0) {
        return 0;
      }
      if (at == h) {
        values[i] |= 1;
        return values[i] >>> 1;
      }
    }
  }

  /**
   * Sets the key's last value, adding the key when absent.
   *
   * @return true when the key was added (the table grew by one)
   */
  boolean put(long hash, long value) {
    if ((size + 1) * 4L > hashes.length * 3L) {
      resize(Math.max(FIRST_CAPACITY, hashes.length * 2));
    }
    long h = nonZero(hash);
    int mask = hashes.length - 1;
    for (int i = index(h, mask); ; i = (i + 1) & mask) {
      long at = hashes[i];
      if (at == h) {
        values[i] = value << 1 | 1;
        return false;
      }
      if (at == 0) {
        hashes[i] = h;
        values[i] = value << 1 | 1;
        size++;
        return true;
      }
    }
  }

  /**
   * Drops every key not used since the last sweep and clears the mark of the others.
   *
   * @param dropped told the last value of each key dropped
   * @return the keys dropped
   */
  int sweep(java.util.function.LongConsumer dropped) {
    if (size == 0) {
      return 0;
    }
    long[] oldHashes = hashes;
    long[] oldValues = values;
    int kept = 0;
    for (int i = 0; i < oldHashes.length; i++) {
      if (oldHashes[i] != 0 && (oldValues[i] & 1) != 0) {
        kept++;
      }
    }
    int before = size;
    int capacity = FIRST_CAPACITY;
    while (kept * 4L > capacity * 3L) {
      capacity *= 2;
    }
    hashes = new long[kept == 0 ? 0 : capacity];
    values = new long[hashes.length];
    size = 0;
    for (int i = 0; i < oldHashes.length; i++) {
      if (oldHashes[i] == 0) {
        continue;
      }
      if ((oldValues[i] & 1) != 0) {
        put(oldHashes[i], oldValues[i] >>> 1);
        values[slot(oldHashes[i])] &= ~1L;
      } else {
        dropped.accept(oldValues[i] >>> 1);
      }
    }
    return before - size;
  }

  /** Drops every key, telling {@code dropped} each one's last value. */
  void clear(java.util.function.LongConsumer dropped) {
    for (int i = 0; i < hashes.length; i++) {
      if (hashes[i] != 0) {
        dropped.accept(values[i] >>> 1);
      }
    }
    hashes = new long[0];
    values = new long[0];
    size = 0;
  }

  /** Heap held by the arrays, in bytes (for the heap-per-key measure). */
  long arrayBytes() {
    return 2L * hashes.length * Long.BYTES;
  }

  private int slot(long h) {
    int mask = hashes.length - 1;
    for (int i = index(h, mask); ; i = (i + 1) & mask) {
      if (hashes[i] == h) {
        return i;
      }
    }
  }

  private void resize(int capacity) {
    long[] oldHashes = hashes;
    long[] oldValues = values;
    hashes = new long[capacity];
    values = new long[capacity];
    int mask = capacity - 1;
    for (int j = 0; j < oldHashes.length; j++) {
      long h = oldHashes[j];
      if (h != 0) {
        int i = index(h, mask);
        while (hashes[i] != 0) {
          i = (i + 1) & mask;
        }
        hashes[i] = h;
        values[i] = oldValues[j];
      }
    }
  }

  private static long nonZero(long hash) {
    return hash == 0 ? 1 : hash;
  }

  private static int index(long h, int mask) {
    // The low bits pick the section; the probe starts from bits the section did not use.
    return (int) (h >>> 32) & mask;
  }
}
