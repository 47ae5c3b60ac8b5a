package io.leaf.server.uuid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.snowflake.SnowflakeLayout;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class UuidLayoutTest {

  private static final long NOW = 1_750_000_000_000L;
  private static final Pattern CANONICAL =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  private static final List<SnowflakeLayout> LAYOUTS =
      List.of(
          SnowflakeLayout.DEFAULT,
          new SnowflakeLayout(0, 41, 5, 7),
          new SnowflakeLayout(0, 30, 10, 22),
          new SnowflakeLayout(0, 41, 20, 1),
          new SnowflakeLayout(0, 42, 1, 20));
  private final Random random = new Random(42);

  @Test
  void compose_defaultLayout_rfc9562Version7Layout() {
    UuidLayout layout = new UuidLayout(SnowflakeLayout.DEFAULT);
    long id = SnowflakeLayout.DEFAULT.compose(NOW, 513, 0xABC);
    UUID uuid = layout.compose(id, random.nextLong(), random.nextLong());
    assertEquals(7, uuid.version(), "version");
    assertEquals(2, uuid.variant(), "variant 10");
    assertEquals(NOW, uuid.getMostSignificantBits() >>> 16, "unix_ts_ms: the top 48 bits");
    assertEquals(0xABC, uuid.getMostSignificantBits() & 0xFFF, "rand_a: the 12-bit sequence");
    assertEquals(
        513,
        (uuid.getLeastSignificantBits() >>> 52) & 0x3FF,
        "the worker ID: rand_b's top 10 bits");
    assertTrue(CANONICAL.matcher(uuid.toString()).matches(), "canonical form: " + uuid);
    assertEquals(
        String.format("%012x", NOW),
        uuid.toString().replace("-", "").substring(0, 12),
        "the timestamp reads in the first 12 hex digits");
  }

  @Test
  void compose_randomBits_changeOnlyTheRandomPart() {
    UuidLayout layout = new UuidLayout(SnowflakeLayout.DEFAULT);
    long id = SnowflakeLayout.DEFAULT.compose(NOW, 3, 5);
    UUID a = layout.compose(id, 0, 0);
    UUID b = layout.compose(id, -1L, -1L);
    assertEquals(a.getMostSignificantBits(), b.getMostSignificantBits(), "no random bit in msb");
    assertEquals(
        (1L << 52) - 1,
        a.getLeastSignificantBits() ^ b.getLeastSignificantBits(),
        "exactly rand_b's low 52 bits are random");
  }

  @Test
  void compose_anyLayout_ordersAsTheSnowflakeIdsDo() {
    for (SnowflakeLayout s : LAYOUTS) {
      UuidLayout layout = new UuidLayout(s);
      for (int i = 0; i < 20_000; i++) {
        long ts = s.epochMs() + (random.nextLong() & ((1L << 30) - 1));
        int worker = random.nextInt(s.maxWorkerId() + 1);
        int seq = random.nextInt(s.maxSequence() + 1);
        long a = s.compose(ts, worker, seq);
        long b = s.compose(ts + random.nextInt(2), worker, random.nextInt(s.maxSequence() + 1));
        UUID ua = layout.compose(a, random.nextLong(), random.nextLong());
        UUID ub = layout.compose(b, random.nextLong(), random.nextLong());
        if (a != b) {
          assertEquals(
              Long.compare(a, b) < 0,
              compareUnsigned(ua, ub) < 0,
              s + ": " + a + " vs " + b + " as " + ua + " vs " + ub);
          assertEquals(
              Long.compare(a, b) < 0,
              ua.toString().compareTo(ub.toString()) < 0,
              s + ": the canonical strings sort the same way");
        }
      }
    }
  }

  @Test
  void decode_anyLayout_roundTripsTimestampAndWorker() {
    for (SnowflakeLayout s : LAYOUTS) {
      UuidLayout layout = new UuidLayout(s);
      for (int i = 0; i < 10_000; i++) {
        long ts = s.epochMs() + (random.nextLong() & ((1L << 30) - 1));
        int worker = random.nextInt(s.maxWorkerId() + 1);
        UUID uuid =
            layout.compose(
                s.compose(ts, worker, random.nextInt(s.maxSequence() + 1)),
                random.nextLong(),
                random.nextLong());
        assertEquals(new UuidLayout.Parts(ts, worker), layout.decode(uuid), s + ": " + uuid);
        assertEquals(7, uuid.version(), s + " version");
        assertEquals(2, uuid.variant(), s + " variant");
      }
    }
  }

  @Test
  void compose_differentWorkers_neverShareAValue() {
    for (SnowflakeLayout s : LAYOUTS) {
      UuidLayout layout = new UuidLayout(s);
      long ts = s.epochMs() + 1_000_000;
      // Same timestamp, sequence and random bits: only the worker differs.
      UUID a = layout.compose(s.compose(ts, 0, 0), -1L, -1L);
      UUID b = layout.compose(s.compose(ts, s.maxWorkerId(), 0), -1L, -1L);
      assertTrue(!a.equals(b), s + ": workers 0 and max differ in fixed bits");
      assertEquals(0, layout.decode(a).workerId(), s + " worker 0");
      assertEquals(s.maxWorkerId(), layout.decode(b).workerId(), s + " worker max");
    }
  }

  @Test
  void decode_notVersion7_invalidArgument() {
    UuidLayout layout = new UuidLayout(SnowflakeLayout.DEFAULT);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> layout.decode(UUID.randomUUID()));
    assertTrue(e.getMessage().contains("version 4"), e.getMessage());
  }

  private static int compareUnsigned(UUID a, UUID b) {
    int hi = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
    return hi != 0
        ? hi
        : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
  }
}
