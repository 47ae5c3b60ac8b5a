package io.leaf.server.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The key in {@code /api/segment/get/{key}}: one path segment, percent-decoded as UTF-8 (so {@code
 * %E8%AE%A2%E5%8D%95} is {@code 订单} and {@code pay%2Frefund} is {@code pay/refund}); {@code +}
 * stays a plus, as in any path. Malformed escapes and invalid UTF-8 are refused.
 */
final class PathTags {

  private PathTags() {}

  /**
   * @throws IllegalArgumentException the segment is not valid percent-encoded UTF-8; the message
   *     says why
   */
  static String decode(String segment) {
    if (segment.indexOf('%') < 0) {
      return segment;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(segment.length());
    for (int i = 0; i < segment.length(); i++) {
      if (segment.charAt(i) != '%') {
        // The run up to the next escape, whole: a surrogate pair must not be split.
        int end = segment.indexOf('%', i);
        end = end < 0 ? segment.length() : end;
        bytes.writeBytes(segment.substring(i, end).getBytes(StandardCharsets.UTF_8));
        i = end - 1;
        continue;
      }
      if (i + 2 >= segment.length()) {
        throw new IllegalArgumentException("biz_tag has a truncated %-escape");
      }
      int hi = Character.digit(segment.charAt(i + 1), 16);
      int lo = Character.digit(segment.charAt(i + 2), 16);
      if (hi < 0 || lo < 0) {
        throw new IllegalArgumentException("biz_tag has a malformed %-escape");
      }
      bytes.write(hi << 4 | lo);
      i += 2;
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("biz_tag is not valid UTF-8");
    }
  }
}
