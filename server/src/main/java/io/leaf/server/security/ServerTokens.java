package io.leaf.server.security;

import com.google.common.base.Ticker;
import io.leaf.server.config.OpsConfig;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A server's tokens as its configuration sets them: {@code --tokens-file} (re-read every {@code
 * --tokens-refresh} on a thread of its own, stopped by {@link #close}), or {@code --admin-token}
 * and {@code --client-token} (fixed), or none (every call open).
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
   * @throws IllegalArgumentException the token file cannot be used; one line naming it
   */
  public static ServerTokens from(OpsConfig ops, Ticker ticker, TokenMeters meters) {
    if (ops.tokensFile() == null) {
      TokenRegistry fixed = TokenRegistry.ofFlags(ops.adminToken(), ops.clientToken(), meters);
      return new ServerTokens(new TokenAccess(() -> fixed), null);
    }
    ScheduledExecutorService refresher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "leaf-tokens-refresh");
      t.setDaemon(true);
      return t;
    });
    try {
      TokensFile file = new TokensFile(ops.tokensFile(), ticker, meters, refresher,
          ops.tokensRefresh());
      return new ServerTokens(new TokenAccess(file), file);
    } catch (RuntimeException e) {
      refresher.shutdownNow();
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
