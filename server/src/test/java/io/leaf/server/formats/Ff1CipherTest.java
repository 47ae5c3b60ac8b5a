package io.leaf.server.formats;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.Random;
import java.util.stream.IntStream;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.fpe.FPEEngine;
import org.bouncycastle.crypto.fpe.FPEFF1Engine;
import org.bouncycastle.crypto.params.FPEParameters;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.util.RadixConverter;
import org.junit.jupiter.api.Test;

class Ff1CipherTest {

  private static final String AES128 = "2B7E151628AED2A6ABF7158809CF4F3C";
  private static final String AES192 = AES128 + "EF4359D8D580AA4F";
  private static final String AES256 = AES192 + "7F036D6F04FC6A94";
  private static final byte[] NO_TWEAK = new byte[0];
  private static final byte[] TWEAK = HexFormat.of().parseHex("39383736353433323130");

  @Test
  void encrypt_nistSp80038gRadix10Samples_matchPublishedCiphertexts() {
    // NIST SP 800-38G FF1 samples 1, 2 (AES-128), 4, 5 (AES-192), 7, 8 (AES-256):
    // plaintext 0123456789, ten digits.
    assertSample(AES128, NO_TWEAK, 2433477484L, "sample 1");
    assertSample(AES128, TWEAK, 6124200773L, "sample 2");
    assertSample(AES192, NO_TWEAK, 2830668132L, "sample 4");
    assertSample(AES192, TWEAK, 2496655549L, "sample 5");
    assertSample(AES256, NO_TWEAK, 6657667009L, "sample 7");
    assertSample(AES256, TWEAK, 1001623463L, "sample 8");
  }

  @Test
  void encrypt_keysAlternatingOnOneThread_sameAsBouncyCastlesOwnAes() {
    // The engine Ff1Cipher used before it ran on the JDK's AES: FF1 over Bouncy Castle's AESEngine.
    FPEEngine reference = new FPEFF1Engine(AESEngine.newInstance());
    RadixConverter decimal = new RadixConverter(10);
    Random random = new Random(38);
    String[] keys = {AES128, AES256, AES192, AES256};
    for (int i = 0; i < 400; i++) {
      String hex = keys[i % keys.length];
      int width = 6 + random.nextInt(13);
      long v = Math.floorMod(random.nextLong(), IdPattern.POW10[width]);
      byte[] tweak = Ff1Cipher.tweak("t" + random.nextInt(5), Integer.toString(i % 3));
      boolean encrypt = i % 2 == 0;
      byte[] digits = new byte[width];
      long rest = v;
      for (int d = width - 1; d >= 0; d--) {
        digits[d] = (byte) (rest % 10);
        rest /= 10;
      }
      reference.init(
          encrypt,
          new FPEParameters(new KeyParameter(HexFormat.of().parseHex(hex)), decimal, tweak, false));
      reference.processBlock(digits, 0, width, digits, 0);
      long expected = 0;
      for (byte d : digits) {
        expected = expected * 10 + d;
      }
      Ff1Cipher cipher = new Ff1Cipher(key(hex), width);
      assertEquals(
          expected,
          encrypt ? cipher.encrypt(v, tweak) : cipher.decrypt(v, tweak),
          (encrypt ? "encrypt " : "decrypt ") + v + ", width " + width + ", step " + i);
    }
  }

  @Test
  void encrypt_wholeWidth6Domain_isABijectionOntoSixDigits() {
    Ff1Cipher cipher = new Ff1Cipher(key(AES128), 6);
    byte[] tweak = Ff1Cipher.tweak("orders", "20261126");
    // 10^6 encryptions are the cost of this test; they run on every core (each thread has its
    // own engine), the checks after them on one.
    long[] image = new long[1_000_000];
    IntStream.range(0, image.length).parallel().forEach(x -> image[x] = cipher.encrypt(x, tweak));
    BitSet seen = new BitSet(image.length);
    long fixedPoints = 0;
    for (int x = 0; x < image.length; x++) {
      long y = image[x];
      assertTrue(y >= 0 && y < 1_000_000, "6 digits: " + x + " -> " + y);
      assertFalse(seen.get((int) y), "two numbers encrypt to " + y + " (second " + x + ")");
      seen.set((int) y);
      if (x == y) {
        fixedPoints++;
      }
    }
    assertEquals(1_000_000, seen.cardinality(), "every six-digit number is hit once");
    assertTrue(
        fixedPoints < 20, "a random permutation has about one fixed point, got " + fixedPoints);
    for (int x = 0; x < image.length; x += 997) {
      assertEquals(x, cipher.decrypt(image[x], tweak), "decrypt inverts encrypt at " + x);
    }
  }

  @Test
  void decrypt_everyWidth_roundTripsEncrypt() {
    Random random = new Random(6);
    for (int width = 6; width <= 18; width++) {
      Ff1Cipher cipher = new Ff1Cipher(key(AES128), width);
      long limit = IdPattern.POW10[width];
      long[] values = {0, 1, limit - 1, Math.floorMod(random.nextLong(), limit)};
      for (long v : values) {
        long c = cipher.encrypt(v, TWEAK);
        assertTrue(c >= 0 && c < limit, "width " + width + " keeps " + c + " in the domain");
        assertEquals(v, cipher.decrypt(c, TWEAK), "width " + width + " round trip of " + v);
      }
    }
  }

  @Test
  void decrypt_wrongKeyOrTweak_givesAnotherNumber() {
    Ff1Cipher right = new Ff1Cipher(key(AES128), 8);
    Ff1Cipher wrong = new Ff1Cipher(key(AES256), 8);
    byte[] tweak = Ff1Cipher.tweak("orders", "20261126");
    int same = 0;
    for (long v = 1; v <= 1000; v++) {
      long c = right.encrypt(v, tweak);
      if (wrong.decrypt(c, tweak) == v) {
        same++;
      }
      assertNotEquals(
          c,
          right.encrypt(v, Ff1Cipher.tweak("orders", "20261127")),
          "the next day's tweak hides the same sequence, at " + v);
    }
    assertTrue(same <= 1, "a wrong key decodes " + same + " of 1000 numbers right");
  }

  @Test
  void tweak_tagAndPeriod_lengthPrefixedSoPairsNeverCollide() {
    assertArrayEquals(
        concat(new byte[] {0, 2}, "ab2026".getBytes(StandardCharsets.UTF_8)),
        Ff1Cipher.tweak("ab", "2026"),
        "2-byte tag length, tag, period");
    assertFalse(
        java.util.Arrays.equals(Ff1Cipher.tweak("ab2", "026"), Ff1Cipher.tweak("ab", "2026")),
        "moving a character from tag to period changes the tweak");
    long c = new Ff1Cipher(key(AES128), 6).encrypt(1, Ff1Cipher.tweak("订单".repeat(64), ""));
    assertTrue(c >= 0 && c < 1_000_000, "a 384-byte tag still makes a usable tweak");
  }

  @Test
  void constructor_widthOutsideFf1Domain_refused() {
    FormatKey k = key(AES128);
    assertThrows(IllegalArgumentException.class, () -> new Ff1Cipher(k, 5), "below 10^6");
    assertThrows(IllegalArgumentException.class, () -> new Ff1Cipher(k, 19), "past a long");
    Ff1Cipher cipher = new Ff1Cipher(k, 6);
    assertThrows(
        IllegalArgumentException.class, () -> cipher.encrypt(1_000_000, NO_TWEAK), "seven digits");
    assertThrows(IllegalArgumentException.class, () -> cipher.decrypt(-1, NO_TWEAK), "negative");
  }

  private static void assertSample(String hexKey, byte[] tweak, long expected, String name) {
    Ff1Cipher cipher = new Ff1Cipher(key(hexKey), 10);
    assertEquals(expected, cipher.encrypt(123456789L, tweak), name + " encrypts");
    assertEquals(123456789L, cipher.decrypt(expected, tweak), name + " decrypts");
  }

  private static FormatKey key(String hex) {
    return FormatKey.ofBytes(HexFormat.of().parseHex(hex));
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] r = new byte[a.length + b.length];
    System.arraycopy(a, 0, r, 0, a.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
