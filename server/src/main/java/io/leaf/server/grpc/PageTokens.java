package io.leaf.server.grpc;

import io.leaf.server.request.InvalidArgumentException;
import io.leaf.server.request.Validation;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** ListTags page tokens: the last tag of a page, opaque to callers. */
final class PageTokens {

  private PageTokens() {}

  static String encode(String lastTag) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(("after:" + lastTag).getBytes(StandardCharsets.UTF_8));
  }

  static String decode(String token) {
    if (token.isEmpty()) {
      return null;
    }
    try {
      String decoded = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      // Only a name a listed tag can have; one the table's column cannot hold is refused by the
      // database as a collation mix (InvalidPageKeyException), also INVALID_ARGUMENT.
      String after = decoded.startsWith("after:") ? decoded.substring("after:".length()) : null;
      if (after != null && Validation.isListedTagName(after)) {
        return after;
      }
    } catch (IllegalArgumentException e) {
      // falls through to the error below
    }
    throw new InvalidArgumentException(
        "page_token is not a token returned by ListTags, got \""
            + (token.length() > 40 ? token.substring(0, 40) + "…" : token)
            + "\"");
  }
}
