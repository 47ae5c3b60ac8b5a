package io.leaf.server.http;

import io.leaf.server.security.Caller;
import io.leaf.server.security.Role;
import io.leaf.server.security.TokenAccess;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * The token rule ({@link TokenAccess}) on HTTP: 401 when no token is sent where one is needed, 403
 * for an unknown token, a role too low or a tag out of scope, 429 with {@code Retry-After} over the
 * token's rate.
 */
final class BearerTokens {

  private BearerTokens() {}

  /**
   * The caller of {@code call} if its token grants {@code needed}; null when the call was answered.
   *
   * @param action what the call does, as the reason names it
   * @param hint appended to the 401's reason (which token, how else), or empty
   */
  static Caller admit(TokenAccess access, HttpCall call, Role needed, String action, String hint) {
    TokenAccess.Admission admission =
        access.admit(call.header(HttpHeaderNames.AUTHORIZATION), needed, action);
    if (admission.refusal() != null) {
      answer(call, admission.refusal(), hint);
      return null;
    }
    return admission.caller();
  }

  /**
   * Whether {@code call} may take {@code ids} IDs of {@code tag} (null: no tag); when not, the call
   * was answered.
   */
  static boolean allowed(TokenAccess access, HttpCall call, String tag, long ids) {
    Caller caller = admit(access, call, Role.ISSUE, "this call", "");
    if (caller == null) {
      return false;
    }
    TokenAccess.Refusal refusal = access.allow(caller, tag, ids);
    if (refusal != null) {
      answer(call, refusal, "");
      return false;
    }
    return true;
  }

  private static void answer(HttpCall call, TokenAccess.Refusal refusal, String hint) {
    switch (refusal.kind()) {
      case UNAUTHENTICATED ->
          call.fail(
              HttpResponseStatus.UNAUTHORIZED,
              "this call needs the" + " header 'Authorization: Bearer <token>'" + hint,
              HttpHeaderNames.WWW_AUTHENTICATE,
              "Bearer");
      case PERMISSION_DENIED -> call.fail(HttpResponseStatus.FORBIDDEN, refusal.reason());
      case RESOURCE_EXHAUSTED ->
          call.fail(
              HttpResponseStatus.TOO_MANY_REQUESTS,
              refusal.reason(),
              HttpHeaderNames.RETRY_AFTER,
              Long.toString(Math.max(1, (refusal.retryAfterMillis() + 999) / 1000)));
    }
  }
}
