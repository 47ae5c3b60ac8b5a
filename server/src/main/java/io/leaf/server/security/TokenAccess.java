package io.leaf.server.security;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The one rule every transport applies to a call: who the caller is ({@link #admit}) and whether it
 * may take what it asks ({@link #allow}).
 *
 * <p>{@link #admit}: the token is known and its role grants the call; {@link #allow}: the tag is in
 * its scope and its rate holds the IDs. gRPC ({@link TokenAuthInterceptor}) and HTTP answer the
 * refusals with their own statuses.
 *
 * <p>Reasons name the token by its name, the tag, the role needed, the limit; never a token or a
 * digest. Thread-safe: the registry is read once per call from its source, which a re-read token
 * file replaces as a whole.
 */
public final class TokenAccess {

  /** Why a call is refused, and its gRPC status. */
  public enum Kind {
    /** No bearer token where one is needed (HTTP 401). */
    UNAUTHENTICATED,
    /** An unknown token, a role too low, a tag out of scope (HTTP 403). */
    PERMISSION_DENIED,
    /** Over the token's rate (HTTP 429). */
    RESOURCE_EXHAUSTED
  }

  /**
   * A refused call.
   *
   * @param retryAfterNanos when a retry may succeed; 0 when no wait will help
   */
  public record Refusal(Kind kind, String reason, long retryAfterNanos) {

    /** The retry hint in whole milliseconds, rounded up; 0 when none. */
    public long retryAfterMillis() {
      return retryAfterNanos <= 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(retryAfterNanos + 999_999);
    }
  }

  /** The outcome of {@link #admit}: the caller, or the refusal. */
  public record Admission(Caller caller, Refusal refusal) {}

  private final Supplier<TokenRegistry> registry;

  /**
   * @param registry read once per call: the file's latest good registry, or a fixed one
   */
  public TokenAccess(Supplier<TokenRegistry> registry) {
    this.registry = registry;
  }

  /** A server without tokens: every call admitted, as admin of every tag, without a limit. */
  public static TokenAccess open() {
    TokenRegistry open = TokenRegistry.open();
    return new TokenAccess(() -> open);
  }

  /** The registry in force now. */
  public TokenRegistry registry() {
    return registry.get();
  }

  /**
   * Who sent {@code authorization}, if its role grants {@code needed}.
   *
   * @param authorization the header's value; null when absent
   * @param action what the call does, as a reason names it ({@code CreateTag})
   */
  public Admission admit(String authorization, Role needed, String action) {
    TokenRegistry tokens = registry.get();
    Caller caller = tokens.find(authorization);
    if (caller == null) {
      caller = tokens.anonymous();
    }
    boolean bearer = TokenRegistry.isBearer(authorization);
    if (caller == null || caller == tokens.anonymous() && !caller.role().grants(needed)) {
      return new Admission(
          null,
          bearer
              ? refuse(
                  Kind.PERMISSION_DENIED,
                  "the bearer token does not grant "
                      + action
                      + (caller == null
                          ? ": this server knows no such token"
                          : ", which needs a token of role " + needed.fileName()))
              : refuse(
                  Kind.UNAUTHENTICATED,
                  action + " needs the header 'authorization: Bearer <token>'"));
    }
    if (!caller.role().grants(needed)) {
      return new Admission(
          null,
          refuse(
              Kind.PERMISSION_DENIED,
              action
                  + " needs a token of role "
                  + needed.fileName()
                  + " or above; token '"
                  + caller.name()
                  + "' has role "
                  + caller.role().fileName()));
    }
    return new Admission(caller, null);
  }

  /**
   * Whether {@code caller} may take {@code ids} IDs of {@code tag}; counts them on its meter.
   *
   * @param tag the tag the call names; null for calls of no tag (snowflake IDs); empty is allowed
   *     here, the API refuses it
   * @return null when allowed
   */
  public Refusal allow(Caller caller, String tag, long ids) {
    if (tag != null && !tag.isEmpty() && !caller.allows(tag)) {
      caller.meter().refused(ids);
      return refuse(
          Kind.PERMISSION_DENIED,
          "token '"
              + caller.name()
              + "' may not use tag '"
              + shown(tag)
              + "' (its tags: "
              + caller.scope()
              + ")");
    }
    IdBucket bucket = caller.bucket();
    if (bucket != null) {
      long wait = bucket.take(ids);
      if (wait != IdBucket.GRANTED) {
        caller.meter().refused(ids);
        return overRate(caller, bucket.rate(), ids, wait);
      }
    }
    if (ids > 0) {
      caller.meter().granted(ids);
    }
    return null;
  }

  private static Refusal overRate(Caller caller, IdRate rate, long ids, long wait) {
    String limit =
        "token '"
            + caller.name()
            + "' is limited to "
            + rate.perSecond()
            + " IDs/s with a burst of "
            + rate.burst();
    if (wait == IdBucket.NEVER) {
      return refuse(
          Kind.RESOURCE_EXHAUSTED,
          limit
              + ": no call may take more than the burst;"
              + " this one asks for "
              + ids
              + ", ask in parts of at most "
              + rate.burst());
    }
    Refusal hint = new Refusal(Kind.RESOURCE_EXHAUSTED, "", wait);
    return new Refusal(
        Kind.RESOURCE_EXHAUSTED,
        limit + ": over it, retry in " + hint.retryAfterMillis() + " ms",
        wait);
  }

  private static Refusal refuse(Kind kind, String reason) {
    return new Refusal(kind, reason, 0);
  }

  /** A tag as a reason may show it: bounded, control characters as '?'. */
  private static String shown(String tag) {
    String cut = tag.length() > 128 ? tag.substring(0, 128) + "…" : tag;
    StringBuilder out = new StringBuilder(cut.length());
    cut.codePoints().forEach(cp -> out.appendCodePoint(Character.isISOControl(cp) ? '?' : cp));
    return out.toString();
  }
}
