package io.leaf.server.uuid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class UlidTest {

  @Test
  void encode_knownValues_crockfordBase32OfTheSameBits() {
    assertEquals("00000000000000000000000000", Ulid.encode(new UUID(0, 0)), "zero");
    assertEquals("7ZZZZZZZZZZZZZZZZZZZZZZZZZ", Ulid.encode(new UUID(-1L, -1L)), "all ones");
    assertEquals("0000000000000000000000000Z", Ulid.encode(new UUID(0, 31)), "low 5 bits");
    assertEquals("00000000000000000000000010", Ulid.encode(new UUID(0, 32)), "bit 5");
    // The 48-bit time is the first 10 characters: 1469918176385 ms is "01ARYZ6S41" (ULID spec).
    UUID t = new UUID(1469918176385L << 16, 0);
    assertEquals("01ARYZ6S41", Ulid.encode(t).substring(0, 10), "timestamp prefix");
  }

  @Test
  void decode_randomUuids_roundTripAndSortTheSame() {
    Random random = new Random(7);
    String previous = null;
    UUID previousUuid = null;
    for (int i = 0; i < 10_000; i++) {
      UUID uuid = new UUID(random.nextLong(), random.nextLong());
      String ulid = Ulid.encode(uuid);
      assertEquals(26, ulid.length(), "26 characters");
      assertEquals(uuid, Ulid.decode(ulid), "round trip " + ulid);
      assertEquals(uuid, Ulid.decode(ulid.toLowerCase()), "case-insensitive");
      if (previous != null) {
        int bits =
            Long.compareUnsigned(
                previousUuid.getMostSignificantBits(), uuid.getMostSignificantBits());
        if (bits == 0) {
          bits =
              Long.compareUnsigned(
                  previousUuid.getLeastSignificantBits(), uuid.getLeastSignificantBits());
        }
        assertEquals(
            Integer.signum(bits),
            Integer.signum(previous.compareTo(ulid)),
            "ULIDs sort as their bits");
      }
      previous = ulid;
      previousUuid = uuid;
    }
  }

  @Test
  void decode_badValues_invalid() {
    assertThrows(IllegalArgumentException.class, () -> Ulid.decode("0123"), "length");
    assertThrows(
        IllegalArgumentException.class,
        () -> Ulid.decode("8ZZZZZZZZZZZZZZZZZZZZZZZZZ"),
        "above 128 bits");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Ulid.decode("0000000000000000000000000U"));
    assertTrue(e.getMessage().contains("'U'"), e.getMessage());
  }
}
