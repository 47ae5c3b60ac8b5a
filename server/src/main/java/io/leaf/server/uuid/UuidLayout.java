package io.leaf.server.uuid;

import io.leaf.server.snowflake.SnowflakeLayout;
import java.util.UUID;

/**
 * Where a snowflake ID's parts go in an RFC 9562 version 7 UUID, so one generator's UUIDs order as
 * its snowflake IDs do. Immutable.
 *
 * <p>The Unix-millisecond timestamp goes in {@code unix_ts_ms}, the sequence as a counter at the
 * top of {@code rand_a} (spilling into {@code rand_b} past 12 bits), the worker ID in fixed bits of
 * {@code rand_b} right after it, and random bits in the rest.
 */
public final class UuidLayout {

  /*
   * RFC 9562 section 6.2, method 1 (a fixed-length dedicated counter): the counter is the snowflake
   * sequence, so the UUIDs of one generator order exactly as its snowflake IDs do (timestamp, then
   * sequence), and they strictly increase because those do. Two servers never share a value: their
   * worker IDs differ in fixed bits, under the worker lease's rules. In the default 41/10/12
   * layout: rand_a is the 12-bit sequence, rand_b's top 10 bits the worker ID, its low 52 bits
   * random.
   *
   * Bit positions (msb: the high 64 bits, lsb: the low 64):
   *   msb = unix_ts_ms(48) | ver 0111 (4) | rand_a(12)
   *   lsb = var 10 (2) | rand_b(62)
   */

  private static final int RAND_A_BITS = 12;
  private static final int RAND_B_BITS = 62;
  private static final long MAX_TIMESTAMP_MS = (1L << 48) - 1;

  private final SnowflakeLayout layout;

  /** Sequence bits that do not fit in rand_a, kept at the top of rand_b. */
  private final int spill;

  /** The position of the worker ID's lowest bit in rand_b. */
  private final int workerShift;

  public UuidLayout(SnowflakeLayout layout) {
    this.layout = layout;
    this.spill = Math.max(0, layout.sequenceBits() - RAND_A_BITS);
    this.workerShift = RAND_B_BITS - spill - layout.workerIdBits();
  }

  /**
   * The UUID of snowflake ID {@code id} of this layout, its free bits from {@code r1} and {@code
   * r2} (random).
   */
  public UUID compose(long id, long r1, long r2) {
    SnowflakeLayout.Parts parts = layout.decompose(id);
    if (parts.timestampMs() > MAX_TIMESTAMP_MS) {
      throw new IllegalArgumentException(
          "timestamp " + parts.timestampMs() + " does not fit in 48 bits");
    }
    long seq = parts.sequence();
    int s = layout.sequenceBits();
    long randA =
        s <= RAND_A_BITS
            ? seq << (RAND_A_BITS - s) | (r1 & ((1L << (RAND_A_BITS - s)) - 1))
            : seq >>> spill;
    long counterLow = spill == 0 ? 0 : (seq & ((1L << spill) - 1)) << (RAND_B_BITS - spill);
    long randB =
        counterLow | ((long) parts.workerId() << workerShift) | (r2 & ((1L << workerShift) - 1));
    long msb = parts.timestampMs() << 16 | 0x7000L | randA;
    long lsb = Long.MIN_VALUE | randB;
    return new UUID(msb, lsb);
  }

  /**
   * The timestamp and worker ID of {@code uuid}.
   *
   * @throws IllegalArgumentException not version 7, or not RFC 9562's variant (10)
   */
  public Parts decode(UUID uuid) {
    if (uuid.version() != 7 || uuid.variant() != 2) {
      throw new IllegalArgumentException(
          "not a version 7 UUID of variant 10 (RFC 9562): "
              + uuid
              + " is version "
              + uuid.version()
              + ", variant "
              + uuid.variant());
    }
    long lsb = uuid.getLeastSignificantBits() & ((1L << RAND_B_BITS) - 1);
    int worker = (int) ((lsb >>> workerShift) & layout.maxWorkerId());
    return new Parts(uuid.getMostSignificantBits() >>> 16, worker);
  }

  /** The snowflake layout whose IDs this layout carries. */
  public SnowflakeLayout snowflake() {
    return layout;
  }

  /** What a UUID of this layout tells: its Unix-millisecond timestamp and worker ID. */
  public record Parts(long timestampMs, int workerId) {}
}
