package io.leaf.server.security;

import com.google.common.base.Ticker;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The tokens a server knows, immutable: each token's {@link Caller} by the SHA-256 digest of the
 * token, and the caller a call without a known token counts as (none when every call needs a
 * token).
 *
 * <p>Built from the token file's lines, or from {@code --admin-token}/{@code --client-token} as its
 * two-line special case.
 *
 * <p>Only digests are kept. A caller's token is digested once per call and looked up by its digest;
 * the lookup's timing can tell at most something about digests, which no one can steer toward a
 * token. Thread-safe.
 */
public final class TokenRegistry {

  /** The name of {@code --admin-token} in statuses and metrics. */
  public static final String ADMIN_TOKEN = "admin-token";

  /** The name of {@code --client-token} in statuses and metrics. */
  public static final String CLIENT_TOKEN = "client-token";

  /** The name of calls without a known token where no token is required. */
  public static final String ANONYMOUS = "anonymous";

  private static final String BEARER = "Bearer ";

  private final Map<String, Caller> byDigest;
  private final Map<String, Caller> byName;
  private final Caller anonymous;

  private TokenRegistry(
      Map<String, Caller> byDigest, Map<String, Caller> byName, Caller anonymous) {
    this.byDigest = Map.copyOf(byDigest);
    this.byName = Map.copyOf(byName);
    this.anonymous = anonymous;
  }

  /** No tokens: every call is open, as admin of every tag. */
  public static TokenRegistry open() {
    return new TokenRegistry(
        Map.of(),
        Map.of(),
        new Caller(ANONYMOUS, Role.ADMIN, TagScope.ALL, null, TokenMeters.Meter.NONE));
  }

  /**
   * {@code --admin-token} and {@code --client-token}: the admin token is {@code admin-token *
   * admin}; the client token {@code client-token * reserve}; without a client token a call that
   * sends no known token may do what the client token would.
   *
   * @param adminToken null: no token at all ({@link #open()})
   * @param clientToken null: the non-admin calls are open
   */
  public static TokenRegistry ofFlags(String adminToken, String clientToken, TokenMeters meters) {
    if (adminToken == null) {
      return open();
    }
    Map<String, Caller> byDigest = new HashMap<>();
    Map<String, Caller> byName = new HashMap<>();
    put(
        byDigest,
        byName,
        digest(adminToken),
        new Caller(ADMIN_TOKEN, Role.ADMIN, TagScope.ALL, null, meters.forToken(ADMIN_TOKEN)));
    Caller anonymous = null;
    Caller client =
        new Caller(
            clientToken == null ? ANONYMOUS : CLIENT_TOKEN,
            Role.RESERVE,
            TagScope.ALL,
            null,
            meters.forToken(clientToken == null ? ANONYMOUS : CLIENT_TOKEN));
    if (clientToken == null) {
      anonymous = client;
    } else {
      put(byDigest, byName, digest(clientToken), client);
    }
    return new TokenRegistry(byDigest, byName, anonymous);
  }

  /**
   * The tokens of a token file; every call needs one of them.
   *
   * @param previous the registry these replace: a token whose name and rate are unchanged keeps its
   *     bucket, so re-reading the file refills no one; null at start
   * @param ticker the buckets' clock
   */
  public static TokenRegistry of(
      List<TokenEntry> entries, TokenRegistry previous, Ticker ticker, TokenMeters meters) {
    Map<String, Caller> byDigest = new HashMap<>();
    Map<String, Caller> byName = new HashMap<>();
    for (TokenEntry e : entries) {
      IdBucket bucket = null;
      if (e.rate() != null) {
        Caller before = previous == null ? null : previous.byName.get(e.name());
        bucket =
            before != null && before.bucket() != null && before.bucket().rate().equals(e.rate())
                ? before.bucket()
                : new IdBucket(e.rate(), ticker);
      }
      put(
          byDigest,
          byName,
          key(e.digest()),
          new Caller(e.name(), e.role(), e.scope(), bucket, meters.forToken(e.name())));
    }
    return new TokenRegistry(byDigest, byName, null);
  }

  private static void put(
      Map<String, Caller> byDigest, Map<String, Caller> byName, String key, Caller caller) {
    byDigest.put(key, caller);
    byName.put(caller.name(), caller);
  }

  /** Whether {@code authorization} (a header's value, null when absent) is a bearer token. */
  public static boolean isBearer(String authorization) {
    return authorization != null
        && authorization.length() > BEARER.length()
        && authorization.regionMatches(true, 0, BEARER, 0, BEARER.length());
  }

  /** The caller of the bearer token in {@code authorization}; null when it is none known here. */
  public Caller find(String authorization) {
    if (!isBearer(authorization) || byDigest.isEmpty()) {
      return null;
    }
    return byDigest.get(digest(authorization.substring(BEARER.length()).trim()));
  }

  /** Who a call without a known token counts as; null when every call needs a token. */
  public Caller anonymous() {
    return anonymous;
  }

  /** The token called {@code name}; null when none is. */
  public Caller named(String name) {
    return byName.get(name);
  }

  /** How many tokens are known. */
  public int size() {
    return byName.size();
  }

  /**
   * One digest per thread: every call digests its token, and a provider lookup per call would cost
   * more than the ID itself.
   */
  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("every Java platform has SHA-256", e);
            }
          });

  /** The lookup key of {@code token}: its digest's bytes as a string. */
  private static String digest(String token) {
    return key(SHA256.get().digest(token.getBytes(StandardCharsets.UTF_8)));
  }

  private static String key(byte[] digest) {
    return new String(digest, StandardCharsets.ISO_8859_1);
  }
}
