package io.leaf.server.region;

import io.leaf.server.formats.SequenceRule;
import io.leaf.server.snowflake.SnowflakeConfig;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which share of the ID space a server's database issues ({@code --region r/n}); {@link #NONE} is a
 * server without regions (the whole space). Immutable; every method is a few arithmetic operations.
 *
 * <p>Region {@code r} of {@code n} owns the segment IDs {@code [r·2^63/n', (r+1)·2^63/n' − 1)} —
 * the region in the high bits, {@code n'} the least power of two not below {@code n} — and the
 * formatted numbers {@code ≡ r + 1 (mod n')}. Its database stores local values (region 0's equal
 * the IDs, so an existing table becomes region 0 unchanged); {@link #toId} adds the share's base.
 */
public final class Region implements SequenceRule {

  /** A server without {@code --region}: every ID, base 0. */
  public static final Region NONE = new Region(0, 0);

  /** The most regions {@code --region} takes: each share still holds 2^53 IDs. */
  public static final int MAX_REGIONS = 1024;

  private static final Pattern SYNTAX = Pattern.compile("(\\d{1,4})/(\\d{1,4})");

  private final int region;
  private final int regions;

  /** log2 of {@link #shares()}. */
  private final int shareBits;

  private Region(int region, int regions) {
    this.region = region;
    this.regions = regions;
    this.shareBits = regions <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(regions - 1);
  }

  /** Region {@code r} of {@code n}; IllegalArgumentException unless 0 ≤ r < n, 2 ≤ n ≤ 1024. */
  public static Region of(int r, int n) {
    if (n < 2 || n > MAX_REGIONS || r < 0 || r >= n) {
      throw new IllegalArgumentException(
          "--region must be r/n with 2 <= n <= "
              + MAX_REGIONS
              + " and 0 <= r < n, got "
              + r
              + "/"
              + n);
    }
    return new Region(r, n);
  }

  /**
   * {@code --region}'s value: {@code r/n}, or empty for {@link #NONE}.
   *
   * @throws IllegalArgumentException one line naming the flag and the value
   */
  public static Region parse(String text) {
    String t = text.trim();
    if (t.isEmpty()) {
      return NONE;
    }
    Matcher m = SYNTAX.matcher(t);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "--region must be r/n like 0/2 (region r of n), got " + text);
    }
    return of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
  }

  public boolean isNone() {
    return regions == 0;
  }

  /** r. */
  public int region() {
    return region;
  }

  /** n; 0 for {@link #NONE}. */
  public int regions() {
    return regions;
  }

  /** n': the least power of two not below n (1 for {@link #NONE}); the space splits in as many. */
  public long shares() {
    return 1L << shareBits;
  }

  /** The first ID of this region's share: {@code r·2^63/n'}. */
  public long base() {
    return isNone() ? 0 : (long) region << (63 - shareBits);
  }

  /**
   * The highest {@code max_id} the database may hold: the share's last integer (IDs stay below it,
   * as they stay below 2^63−1 without regions), in the database's local values.
   */
  public long maxLocalMaxId() {
    return isNone() ? Long.MAX_VALUE : (1L << (63 - shareBits)) - 1;
  }

  /** The ID of a local value of the database ({@code max_id} or a segment bound). */
  public long toId(long local) {
    long base = base();
    return local > Long.MAX_VALUE - base ? Long.MAX_VALUE : base + local;
  }

  /**
   * The local value CreateTag stores for a requested {@code max_id}: a value below the share's size
   * counts from the share's base (so {@code 1}, the default, starts every region at its first ID),
   * a value within the share is taken as that ID; anything else is out of reach.
   *
   * @throws IllegalArgumentException {@code maxId} lies in another region's share
   */
  public long toLocal(long maxId) {
    long base = base();
    long last = maxLocalMaxId();
    if (maxId <= last) {
      return maxId;
    }
    if (maxId >= base && maxId - base <= last) {
      return maxId - base;
    }
    throw new IllegalArgumentException(
        "max_id must lie in region "
            + this
            + "'s share "
            + base
            + " to "
            + (base + last)
            + " (or be below "
            + (last + 1)
            + ", counted from its start),"
            + " got "
            + maxId);
  }

  /**
   * The formatted sequence of a row's ID {@code id}: {@code (local − 1)·n' + r + 1}, so region r's
   * numbers are the residues {@code r + 1 (mod n')} and every region's first is small; without
   * regions, {@code id} itself. Saturates at {@link Long#MAX_VALUE} (past any width).
   */
  @Override
  public long sequence(long id) {
    if (isNone()) {
      return id;
    }
    long local = id - base();
    if (local < 1) {
      return local; // a row set below 1 by hand: shown as it is (the width check refuses it)
    }
    long n = shares();
    return local - 1 > (Long.MAX_VALUE - region - 1) / n
        ? Long.MAX_VALUE
        : (local - 1) * n + region + 1;
  }

  /**
   * How many IDs from {@code cursor} on (a row's next ID) map to sequences of at most {@code
   * maxSequence}; 0 when none.
   */
  @Override
  public long sequencesLeft(long cursor, long maxSequence) {
    if (isNone()) {
      return Math.max(0, maxSequence + 1 - cursor);
    }
    if (maxSequence < region + 1) {
      return 0;
    }
    long lastLocal = (maxSequence - region - 1) / shares() + 1;
    return Math.max(0, lastLocal - (cursor - base()) + 1);
  }

  /**
   * The snowflake settings of a server of this region: worker IDs are split as IDs are (region r
   * owns {@code [r·W/n', (r+1)·W/n')} of {@code W = 2^workerIdBits}), since each region leases them
   * from its own database. Without {@code --worker-id-range} the range is that share; a range given
   * must lie within it.
   *
   * @throws IllegalArgumentException one line naming the flags
   */
  public SnowflakeConfig snowflake(SnowflakeConfig s, boolean rangeGiven) {
    if (isNone()) {
      return s;
    }
    int bits = s.layout().workerIdBits();
    if (shareBits > bits) {
      throw new IllegalArgumentException(
          "--region "
              + this
              + " splits worker IDs in "
              + shares()
              + " but --snowflake-bits leaves "
              + bits
              + " worker ID bits ("
              + (1 << bits)
              + " IDs)");
    }
    int size = 1 << (bits - shareBits);
    int from = region * size;
    int to = from + size - 1;
    if (!rangeGiven) {
      return new SnowflakeConfig(s.layout(), from, to, s.leaseTtl(), s.maxClientLeases());
    }
    if (s.fromId() < from || s.toId() > to) {
      throw new IllegalArgumentException(
          "--worker-id-range "
              + s.fromId()
              + "-"
              + s.toId()
              + " must lie within region "
              + this
              + "'s worker IDs "
              + from
              + "-"
              + to);
    }
    return s;
  }

  /** {@code r/n}, or {@code none}. */
  @Override
  public String toString() {
    return isNone() ? "none" : region + "/" + regions;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Region other && other.region == region && other.regions == regions;
  }

  @Override
  public int hashCode() {
    return 31 * region + regions;
  }
}
