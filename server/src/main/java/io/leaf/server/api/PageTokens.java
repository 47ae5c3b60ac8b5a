package io.leaf.server.api;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** ListTags page tokens: the last tag of a page, opaque to callers. */
final class PageTokens {

  private PageTokens() {}

  static String encode(String lastTag) {
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString(("after:" + lastTag).getBytes(StandardCharsets.UTF_8));
  }

  static String decode(String token) {
    if (token.isEmpty()) {
      return null;
    }
    try {
      String decoded = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      if (decoded.startsWith("after:")) {
        return decoded.substring("after:".length());
      }
    } catch (IllegalArgumentException e) {
      // falls through to the error below
    }
    throw new InvalidArgumentException("page_token is not a token returned by ListTags, got \""
        + (token.length() > 40 ? token.substring(0, 40) + "…" : token) + "\"");
  }
}
