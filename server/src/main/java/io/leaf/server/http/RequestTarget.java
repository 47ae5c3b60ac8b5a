package io.leaf.server.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The path of a request target in the origin or absolute form of RFC 9112 (3.2), without the query;
 * any other form is returned as it is and matches no route.
 *
 * <p>Origin form is {@code /api/…?q}; absolute form is {@code http://host:port/api/…}, whose path
 * is taken and whose authority is ignored; the other forms are asterisk and authority. Bytes past
 * ASCII are read as UTF-8, so a path holding {@code 订单} unescaped is {@code 订单}; invalid UTF-8 is
 * refused.
 */
final class RequestTarget {

  private RequestTarget() {}

  /**
   * @param target the request target as the HTTP codec read it: one char per byte (ISO-8859-1)
   * @throws IllegalArgumentException the target is not valid UTF-8; the message says so
   */
  static String path(String target) {
    String path = target;
    int scheme = schemeLength(target);
    if (scheme > 0) {
      int start = target.indexOf('/', scheme);
      int query = target.indexOf('?', scheme);
      if (start < 0 || (query >= 0 && query < start)) {
        path = "/" + (query < 0 ? "" : target.substring(query));
      } else {
        path = target.substring(start);
      }
    }
    int query = path.indexOf('?');
    if (query >= 0) {
      path = path.substring(0, query);
    }
    return utf8(path);
  }

  /** The length of {@code http://} or {@code https://} (any case) at the start; 0 when neither. */
  private static int schemeLength(String target) {
    if (target.regionMatches(true, 0, "http://", 0, 7)) {
      return 7;
    }
    return target.regionMatches(true, 0, "https://", 0, 8) ? 8 : 0;
  }

  private static String utf8(String latin1) {
    if (latin1.chars().allMatch(c -> c < 0x80)) {
      return latin1;
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(latin1.getBytes(StandardCharsets.ISO_8859_1)))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          "the request path is not valid UTF-8 (send other bytes" + " %-escaped)");
    }
  }
}
