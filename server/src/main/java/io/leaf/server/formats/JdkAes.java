package io.leaf.server.formats;

import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.crypto.BlockCipher;
import org.bouncycastle.crypto.CipherParameters;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * AES as a Bouncy Castle {@link BlockCipher}, each block computed by the JDK's {@code
 * AES/ECB/NoPadding}. Not thread-safe: one per FF1 engine.
 *
 * <p>The JVM runs the JDK's AES on the processor's AES instructions where it has them: the same
 * blocks as Bouncy Castle's table-based {@code AESEngine}, which made up about half of an FF1
 * encryption's time (FF1 encrypts two or more blocks in each of its ten rounds).
 *
 * <p>{@link #init} with the key it already holds (the same bytes) keeps the key schedule it has, as
 * FF1 re-initialises its block cipher for every number.
 */
final class JdkAes implements BlockCipher {

  private static final int BLOCK = 16;

  private final Cipher cipher;

  /** The key the cipher was last initialised with; never copied, never shown. */
  private KeyParameter key;

  private boolean forEncryption;

  JdkAes() {
    try {
      cipher = Cipher.getInstance("AES/ECB/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java platform has AES/ECB/NoPadding", e);
    }
  }

  @Override
  public void init(boolean forEncryption, CipherParameters params) {
    if (!(params instanceof KeyParameter k)) {
      throw new IllegalArgumentException(
          "AES takes a KeyParameter, got "
              + (params == null ? "null" : params.getClass().getSimpleName()));
    }
    if (key != null
        && this.forEncryption == forEncryption
        && (key == k || Arrays.equals(key.getKey(), k.getKey()))) {
      return;
    }
    try {
      cipher.init(
          forEncryption ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE,
          new SecretKeySpec(k.getKey(), "AES"));
    } catch (GeneralSecurityException e) {
      key = null;
      // The message of an invalid key names its length, never its bytes.
      throw new IllegalArgumentException("AES refused the key: " + e.getMessage(), e);
    }
    key = k;
    this.forEncryption = forEncryption;
  }

  @Override
  public String getAlgorithmName() {
    return "AES";
  }

  @Override
  public int getBlockSize() {
    return BLOCK;
  }

  @Override
  public int processBlock(byte[] in, int inOff, byte[] out, int outOff) {
    if (key == null) {
      throw new IllegalStateException("AES not initialised");
    }
    try {
      return cipher.update(in, inOff, BLOCK, out, outOff);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES block at " + inOff + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void reset() {
    // ECB keeps no state between blocks.
  }
}
