package io.leaf.server.security;

import com.google.common.base.Ticker;
import io.leaf.server.config.TokenConfig;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * A server's tokens as its configuration sets them: {@code --tokens-file} (re-read every {@code
 * --tokens-refresh} on a scheduler of its own, shut down by {@link #close}), or {@code
 * --admin-token} and {@code --client-token} (fixed), or none (every call open).
 */
public final class ServerTokens implements AutoCloseable {

  private final TokenAccess access;
  private final TokensFile file;

  private ServerTokens(TokenAccess access, TokensFile file) {
    this.access = access;
    this.file = file;
  }

  /**
   * Reads the token file if one is set.
   *
   * @param ticker the rate buckets' clock
   * @param meters where each token's IDs are counted
   * @param refresher makes the scheduler of the file's re-reads, asked only when a file is set
   * @throws IllegalArgumentException the token file cannot be used; one line naming it
   */
  public static ServerTokens from(
      TokenConfig tokens,
      Ticker ticker,
      TokenMeters meters,
      Supplier<? extends ScheduledExecutorService> refresher) {
    if (tokens.file() == null) {
      TokenRegistry fixed =
          TokenRegistry.ofFlags(tokens.adminToken(), tokens.clientToken(), meters);
      return new ServerTokens(new TokenAccess(() -> fixed), null);
    }
    ScheduledExecutorService rereads = refresher.get();
    try {
      TokensFile file = new TokensFile(tokens.file(), ticker, meters, rereads, tokens.refresh());
      return new ServerTokens(new TokenAccess(file), file);
    } catch (RuntimeException e) {
      rereads.shutdownNow();
      throw e;
    }
  }

  /** The rule every transport applies. */
  public TokenAccess access() {
    return access;
  }

  @Override
  public void close() {
    if (file != null) {
      file.close();
    }
  }
}
