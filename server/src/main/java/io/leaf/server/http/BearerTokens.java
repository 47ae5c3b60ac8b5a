package io.leaf.server.http;

import io.leaf.server.security.TokenCheck;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;

/** The bearer-token rule ({@link TokenCheck}) on HTTP: 401 when no token is sent, 403 when denied. */
final class BearerTokens {

  private BearerTokens() {}

  /**
   * Whether {@code tokens} grants {@code call} (a non-admin call); if not, the call is answered.
   *
   * @param tokens null: open to anyone
   * @param hint appended to the 401's reason (which token, how else), or empty
   */
  static boolean granted(TokenCheck tokens, HttpCall call, String hint) {
    if (tokens == null) {
      return true;
    }
    return switch (tokens.check(call.header(HttpHeaderNames.AUTHORIZATION), false)) {
      case GRANTED -> true;
      case MISSING -> {
        call.fail(HttpResponseStatus.UNAUTHORIZED, "this call needs the header 'Authorization:"
            + " Bearer <token>'" + hint, HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        yield false;
      }
      case DENIED -> {
        call.fail(HttpResponseStatus.FORBIDDEN, "the bearer token does not grant this call");
        yield false;
      }
    };
  }
}
