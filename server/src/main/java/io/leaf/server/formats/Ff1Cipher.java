package io.leaf.server.formats;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.bouncycastle.crypto.fpe.FPEEngine;
import org.bouncycastle.crypto.fpe.FPEFF1Engine;
import org.bouncycastle.crypto.params.FPEParameters;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.util.RadixConverter;

/**
 * FF1 format-preserving encryption (NIST SP 800-38G, AES) of numbers of exactly {@code width}
 * decimal digits: for each tweak, {@link #encrypt} is a bijection on {@code [0, 10^width)} and
 * {@link #decrypt} its inverse.
 *
 * <p>FF1 is Bouncy Castle's {@code FPEFF1Engine}, over the JDK's AES ({@link JdkAes}); this class
 * only turns a {@code long} into digits and back.
 *
 * <p>Opaque sequence fields use {@link #tweak(String, String)} of the tag and period, so the same
 * sequence looks unrelated in another tag or period while each period's numbers stay unique.
 * Immutable and thread-safe. Each call re-initialises its thread's engine with its key and tweak
 * (the AES key schedule only when the thread's previous call used another key) and runs FF1's ten
 * Feistel rounds: a few microseconds, which bounds an opaque tag's numbers per second per core.
 */
public final class Ff1Cipher {

  private static final int RADIX = 10;

  /**
   * Built once: it precomputes powers of 10 as BigIntegers, which cost more than the encryption
   * when made per call. Immutable after construction, so threads share it.
   */
  private static final RadixConverter DECIMAL = new RadixConverter(RADIX);

  /**
   * One engine per thread, shared by every cipher: each call initialises it with its own key and
   * tweak, so nothing carries over but the AES key schedule of the same key; sharing bounds the
   * engines by the threads, not by the tags.
   */
  private static final ThreadLocal<FPEEngine> ENGINES =
      ThreadLocal.withInitial(() -> new FPEFF1Engine(new JdkAes()));

  private final FormatKey key;

  /** Made once: the engine's AES sees the same key object on every call and keeps its schedule. */
  private final KeyParameter keyParameter;

  private final int width;
  private final long limit;

  /**
   * @param width digits per number, {@value IdPattern#MIN_OPAQUE_WIDTH} to {@value
   *     IdPattern#MAX_WIDTH}: FF1 needs a domain of at least 10^6 values
   */
  public Ff1Cipher(FormatKey key, int width) {
    if (width < IdPattern.MIN_OPAQUE_WIDTH || width > IdPattern.MAX_WIDTH) {
      throw new IllegalArgumentException(
          "FF1 width must be between "
              + IdPattern.MIN_OPAQUE_WIDTH
              + " and "
              + IdPattern.MAX_WIDTH
              + " digits, got "
              + width);
    }
    this.key = key;
    this.keyParameter = key.parameter();
    this.width = width;
    this.limit = IdPattern.POW10[width];
  }

  public int width() {
    return width;
  }

  /** The fingerprint of the key this cipher uses. */
  public String keyFingerprint() {
    return key.fingerprint();
  }

  /**
   * The tweak of a tag's period: the tag's UTF-8 length (2 bytes) and bytes, then the period key's
   * bytes; the length prefix keeps every (tag, period) pair's tweak distinct.
   */
  public static byte[] tweak(String tag, String periodKey) {
    byte[] t = tag.getBytes(StandardCharsets.UTF_8);
    byte[] p = periodKey.getBytes(StandardCharsets.UTF_8);
    if (t.length > 0xFFFF) {
      throw new IllegalArgumentException("tag of " + t.length + " bytes is too long for a tweak");
    }
    return ByteBuffer.allocate(2 + t.length + p.length)
        .putShort((short) t.length)
        .put(t)
        .put(p)
        .array();
  }

  /**
   * {@code plain} encrypted under {@code tweak}.
   *
   * @throws IllegalArgumentException {@code plain} is outside {@code [0, 10^width)}
   */
  public long encrypt(long plain, byte[] tweak) {
    return run(true, plain, tweak);
  }

  /**
   * {@code cipher} decrypted under {@code tweak}: {@code decrypt(encrypt(x, t), t) == x}.
   *
   * @throws IllegalArgumentException {@code cipher} is outside {@code [0, 10^width)}
   */
  public long decrypt(long cipher, byte[] tweak) {
    return run(false, cipher, tweak);
  }

  private long run(boolean encrypt, long in, byte[] tweak) {
    if (in < 0 || in >= limit) {
      throw new IllegalArgumentException(
          "FF1 input must be between 0 and "
              + (limit - 1)
              + " for "
              + width
              + " digits, got "
              + in);
    }
    byte[] digits = new byte[width];
    long v = in;
    for (int i = width - 1; i >= 0; i--) {
      digits[i] = (byte) (v % RADIX);
      v /= RADIX;
    }
    FPEEngine engine = ENGINES.get();
    engine.init(encrypt, new FPEParameters(keyParameter, DECIMAL, tweak, false));
    engine.processBlock(digits, 0, width, digits, 0);
    long out = 0;
    for (byte d : digits) {
      out = out * RADIX + d;
    }
    return out;
  }
}
