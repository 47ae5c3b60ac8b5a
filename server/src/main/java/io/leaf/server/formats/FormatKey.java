package io.leaf.server.formats;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * The AES key of opaque sequence fields, read from the text of {@code --format-key-file}; the key
 * never leaves this object. Immutable and thread-safe.
 *
 * <p>The text is 32, 48 or 64 hex digits (AES-128, -192 or -256), surrounding whitespace ignored,
 * e.g. made by {@code openssl rand -hex 32 > format.key}. Raw binary files are refused, so a key is
 * never guessed from an ambiguous length. {@link #toString()} and every message show only the
 * {@link #fingerprint()}, which is safe to store with a format and to show.
 */
public final class FormatKey {

  /** Domain separation: the fingerprint is the hash of this label and the key, never of the key. */
  private static final byte[] FINGERPRINT_LABEL =
      "leaf formatted-id key fingerprint v1\0".getBytes(StandardCharsets.US_ASCII);

  private final byte[] key;
  private final String fingerprint;

  private FormatKey(byte[] key) {
    this.key = key;
    this.fingerprint = fingerprintOf(key);
  }

  /**
   * The key held in a key file's bytes.
   *
   * @throws IllegalArgumentException the content is not 32, 48 or 64 hex digits; the message tells
   *     the length or the offset of the first bad character, never a character of the key
   */
  public static FormatKey fromFileContent(byte[] content) {
    String text = new String(content, StandardCharsets.US_ASCII).strip();
    for (int i = 0; i < text.length(); i++) {
      if (Character.digit(text.charAt(i), 16) < 0) {
        throw new IllegalArgumentException(
            "a format key file must hold 32, 48 or 64 hex digits"
                + " (e.g. from openssl rand -hex 32); the character at offset "
                + i
                + " is not a hex digit");
      }
    }
    if (text.length() != 32 && text.length() != 48 && text.length() != 64) {
      throw new IllegalArgumentException(
          "a format key file must hold 32, 48 or 64 hex digits"
              + " (an AES-128, -192 or -256 key), got "
              + text.length());
    }
    return new FormatKey(HexFormat.of().parseHex(text));
  }

  /**
   * The key of these raw bytes (copied).
   *
   * @throws IllegalArgumentException the key is not 16, 24 or 32 bytes long
   */
  public static FormatKey ofBytes(byte[] raw) {
    if (raw.length != 16 && raw.length != 24 && raw.length != 32) {
      throw new IllegalArgumentException(
          "a format key must be 16, 24 or 32 bytes (AES-128, -192"
              + " or -256), got "
              + raw.length);
    }
    return new FormatKey(raw.clone());
  }

  /**
   * The first 16 hex digits of SHA-256 over a fixed label and the key: names the key in stored
   * formats, messages and the monitor page without revealing it.
   */
  public String fingerprint() {
    return fingerprint;
  }

  /** The key size in bits: 128, 192 or 256. */
  public int bits() {
    return key.length * 8;
  }

  /**
   * A fresh key parameter (a copy of the key) for a cipher of this package; never stored outside
   * it.
   */
  KeyParameter parameter() {
    return new KeyParameter(key);
  }

  @Override
  public String toString() {
    return "FormatKey[AES-" + bits() + ", fingerprint " + fingerprint + "]";
  }

  private static String fingerprintOf(byte[] key) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(FINGERPRINT_LABEL);
      byte[] digest = sha.digest(key);
      String hex = HexFormat.of().formatHex(digest, 0, 8);
      Arrays.fill(digest, (byte) 0);
      return hex;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
