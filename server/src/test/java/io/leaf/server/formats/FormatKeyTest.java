package io.leaf.server.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class FormatKeyTest {

  private static final String HEX =
      "8f3a61c2d94e07b5a1f2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718";

  @Test
  void fromFileContent_hexWithNewline_readsTheKey() {
    FormatKey k = FormatKey.fromFileContent((HEX + "\n").getBytes(StandardCharsets.US_ASCII));
    assertEquals(256, k.bits(), "64 hex digits");
    assertEquals(
        FormatKey.ofBytes(HexFormat.of().parseHex(HEX)).fingerprint(),
        k.fingerprint(),
        "same key as its raw bytes");
    assertEquals(
        128,
        FormatKey.fromFileContent(
                HEX.substring(0, 32).toUpperCase().getBytes(StandardCharsets.US_ASCII))
            .bits(),
        "32 upper-case hex digits");
  }

  @Test
  void fromFileContent_badContent_refusedWithoutShowingTheKey() {
    IllegalArgumentException shortKey =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                FormatKey.fromFileContent(
                    HEX.substring(0, 31).getBytes(StandardCharsets.US_ASCII)));
    assertTrue(shortKey.getMessage().contains("got 31"), shortKey.getMessage());
    String badChar = HEX.substring(0, 10) + "g" + HEX.substring(11);
    IllegalArgumentException bad =
        assertThrows(
            IllegalArgumentException.class,
            () -> FormatKey.fromFileContent(badChar.getBytes(StandardCharsets.US_ASCII)));
    assertTrue(bad.getMessage().contains("offset 10"), bad.getMessage());
    assertFalse(bad.getMessage().contains(HEX.substring(0, 10)), "no key digits in the message");
    byte[] raw = new byte[32];
    raw[0] = (byte) 0xFF;
    assertThrows(
        IllegalArgumentException.class,
        () -> FormatKey.fromFileContent(raw),
        "raw binary keys are refused");
    assertThrows(IllegalArgumentException.class, () -> FormatKey.ofBytes(new byte[20]), "20 bytes");
  }

  @Test
  void fingerprint_domainSeparated_16HexAndNeverTheKey() throws Exception {
    byte[] raw = HexFormat.of().parseHex(HEX);
    FormatKey k = FormatKey.ofBytes(raw);
    assertTrue(k.fingerprint().matches("[0-9a-f]{16}"), k.fingerprint());
    String plainHash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(raw));
    assertFalse(plainHash.startsWith(k.fingerprint()), "not the bare hash of the key");
    assertNotEquals(
        k.fingerprint(),
        FormatKey.ofBytes(HexFormat.of().parseHex(HEX.substring(0, 32))).fingerprint(),
        "another key, another fingerprint");
    long before = new Ff1Cipher(k, 6).encrypt(1, new byte[0]);
    raw[0] ^= 1;
    assertEquals(
        before,
        new Ff1Cipher(k, 6).encrypt(1, new byte[0]),
        "the key was copied: changing the caller's array changes nothing");
  }

  @Test
  void toString_showsFingerprintOnly() {
    FormatKey k = FormatKey.ofBytes(HexFormat.of().parseHex(HEX));
    String s = k.toString();
    assertEquals("FormatKey[AES-256, fingerprint " + k.fingerprint() + "]", s, "toString");
    for (int i = 0; i + 8 <= HEX.length(); i += 4) {
      assertFalse(s.toLowerCase().contains(HEX.substring(i, i + 8)), "no key digits: " + s);
    }
  }
}
