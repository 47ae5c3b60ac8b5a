package io.leaf.server.snowflake;

import java.time.Instant;
import java.time.ZoneOffset;

/**
 * How a snowflake ID splits its value bits (63 at most): milliseconds since {@code epochMs} in the
 * high {@code timestampBits}, then the worker ID, then the sequence within the millisecond.
 *
 * <p>The sign bit stays 0, so every ID is a positive {@code long}; a layout of fewer bits keeps
 * every ID below {@code 2^}{@link #totalBits()} (53 bits, e.g. 41/5/7, is exact in JavaScript's
 * numbers). {@link #compose} and {@link #decompose} are exact inverses for every value in range.
 *
 * <p>The default is Twitter's and Meituan Leaf's: 41/10/12 bits from Meituan Leaf's default epoch
 * {@code 1288834974657} (2010-11-04T01:42:54.657Z), which runs out in July 2080 ({@link
 * #endYear()}); the same layout and epoch keep IDs increasing for a system moving from Meituan
 * Leaf's snowflake. Immutable.
 *
 * @param epochMs Unix epoch milliseconds of timestamp 0
 */
public record SnowflakeLayout(long epochMs, int timestampBits, int workerIdBits, int sequenceBits) {

  /** Meituan Leaf's (and Twitter's) {@code twepoch}: 2010-11-04T01:42:54.657Z. */
  public static final long MEITUAN_EPOCH_MS = 1288834974657L;

  public static final SnowflakeLayout DEFAULT = new SnowflakeLayout(MEITUAN_EPOCH_MS, 41, 10, 12);

  /**
   * @throws IllegalArgumentException the widths do not add up to 63 or one is out of range
   */
  public SnowflakeLayout {
    if (timestampBits + workerIdBits + sequenceBits > 63) {
      throw new IllegalArgumentException(
          "timestamp, worker ID and sequence bits must add up to"
              + " at most 63, got "
              + timestampBits
              + "/"
              + workerIdBits
              + "/"
              + sequenceBits);
    }
    if (timestampBits < 30
        || workerIdBits < 1
        || workerIdBits > 20
        || sequenceBits < 1
        || sequenceBits > 22) {
      throw new IllegalArgumentException(
          "bits must be timestamp 30 or more, worker ID 1 to 20,"
              + " sequence 1 to 22, got "
              + timestampBits
              + "/"
              + workerIdBits
              + "/"
              + sequenceBits);
    }
    if (epochMs < 0) {
      throw new IllegalArgumentException("epoch must not be before 1970, got " + epochMs);
    }
    if (epochMs > Long.MAX_VALUE - (1L << timestampBits)) {
      throw new IllegalArgumentException(
          "epoch " + epochMs + " is too late for " + timestampBits + " timestamp bits");
    }
  }

  /** The bits an ID uses: every ID is below {@code 2^totalBits}. */
  public int totalBits() {
    return timestampBits + workerIdBits + sequenceBits;
  }

  /** Whether every ID is exactly representable as a JavaScript number (53 bits or fewer). */
  public boolean javascriptSafe() {
    return totalBits() <= 53;
  }

  public int maxWorkerId() {
    return (1 << workerIdBits) - 1;
  }

  public int maxSequence() {
    return (1 << sequenceBits) - 1;
  }

  /** IDs one worker can issue in a millisecond. */
  public int idsPerMillisecond() {
    return 1 << sequenceBits;
  }

  /** The last Unix millisecond an ID of this layout can carry. */
  public long maxTimestampMs() {
    return epochMs + (1L << timestampBits) - 1;
  }

  /** The year of {@link #maxTimestampMs()} (UTC): IDs stop at its end. */
  public int endYear() {
    return Instant.ofEpochMilli(maxTimestampMs()).atZone(ZoneOffset.UTC).getYear();
  }

  /** The ID of {@code timestampMs} (Unix millis), {@code workerId} and {@code sequence}. */
  public long compose(long timestampMs, int workerId, int sequence) {
    long delta = timestampMs - epochMs;
    if (delta < 0 || timestampMs > maxTimestampMs()) {
      throw new IllegalArgumentException(
          "timestamp "
              + timestampMs
              + " is outside the layout's "
              + epochMs
              + ".."
              + maxTimestampMs());
    }
    if (workerId < 0 || workerId > maxWorkerId()) {
      throw new IllegalArgumentException(
          "worker ID must be between 0 and " + maxWorkerId() + ", got " + workerId);
    }
    if (sequence < 0 || sequence > maxSequence()) {
      throw new IllegalArgumentException(
          "sequence must be between 0 and " + maxSequence() + ", got " + sequence);
    }
    return (delta << (workerIdBits + sequenceBits)) | ((long) workerId << sequenceBits) | sequence;
  }

  /** The parts of {@code id}; any non-negative {@code long} below {@code 2^totalBits} splits. */
  public Parts decompose(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("id must not be negative, got " + id);
    }
    if (totalBits() < 63 && id >>> totalBits() != 0) {
      throw new IllegalArgumentException(
          "id must be below 2^"
              + totalBits()
              + " in this "
              + totalBits()
              + "-bit layout, got "
              + id);
    }
    int sequence = (int) (id & maxSequence());
    int workerId = (int) ((id >>> sequenceBits) & maxWorkerId());
    long timestampMs = (id >>> (workerIdBits + sequenceBits)) + epochMs;
    return new Parts(id, timestampMs, workerId, sequence);
  }

  /** The parts of one ID; {@code timestampMs} in Unix epoch milliseconds. */
  public record Parts(long id, long timestampMs, int workerId, int sequence) {}

  @Override
  public String toString() {
    return timestampBits
        + "/"
        + workerIdBits
        + "/"
        + sequenceBits
        + " bits from epoch "
        + Instant.ofEpochMilli(epochMs)
        + " (runs out in "
        + endYear()
        + "; "
        + idsPerMillisecond()
        + " IDs/ms per worker"
        + (javascriptSafe() ? "; every ID exact in JavaScript" : "")
        + ")";
  }
}
