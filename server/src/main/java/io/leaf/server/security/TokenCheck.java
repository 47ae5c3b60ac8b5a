package io.leaf.server.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Whether an {@code Authorization: Bearer <token>} value grants a call: the admin token grants
 * everything; the client token, when set, grants every call but the admin ones; with no client
 * token set, non-admin calls are open. One rule for gRPC ({@link TokenAuthInterceptor}) and HTTP.
 *
 * <p>Tokens are kept and compared as SHA-256 digests with {@link MessageDigest#isEqual}, so the
 * time a comparison takes says nothing about the token, not even its length; neither the tokens
 * nor what a caller sent is ever logged or put in an answer. Thread-safe.
 */
public final class TokenCheck {

  /** The outcome of a check. */
  public enum Verdict {
    /** The call may go on. */
    GRANTED,
    /** No bearer token was sent (UNAUTHENTICATED, HTTP 401). */
    MISSING,
    /** The token sent does not grant this call (PERMISSION_DENIED, HTTP 403). */
    DENIED
  }

  private static final String BEARER = "Bearer ";

  private final byte[] admin;
  private final byte[] client;

  /**
   * @param adminToken grants every call
   * @param clientToken grants the non-admin calls; null leaves them open
   */
  public TokenCheck(String adminToken, String clientToken) {
    if (adminToken == null || adminToken.isEmpty()) {
      throw new IllegalArgumentException("adminToken must not be empty");
    }
    this.admin = digest(adminToken);
    this.client = clientToken == null ? null : digest(clientToken);
  }

  /** Whether non-admin calls need no token. */
  public boolean clientCallsOpen() {
    return client == null;
  }

  /**
   * @param authorization the header's value; null when absent
   * @param adminOnly whether the call needs the admin token
   */
  public Verdict check(String authorization, boolean adminOnly) {
    if (!adminOnly && client == null) {
      return Verdict.GRANTED;
    }
    if (authorization == null
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return Verdict.MISSING;
    }
    byte[] given = digest(authorization.substring(BEARER.length()).trim());
    // Both compared every time: which token matched must not show in the time taken either.
    boolean isAdmin = MessageDigest.isEqual(given, admin);
    boolean isClient = client != null && MessageDigest.isEqual(given, client);
    return isAdmin || (isClient && !adminOnly) ? Verdict.GRANTED : Verdict.DENIED;
  }

  /**
   * One digest per thread: with a client token every ID call is checked, and a provider lookup
   * per call would cost more than the ID itself.
   */
  private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  });

  private static byte[] digest(String token) {
    return SHA256.get().digest(token.getBytes(StandardCharsets.UTF_8));
  }
}
