package io.leaf.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PathTagsTest {

  @Test
  void decode_percentEncodedUtf8_decoded() {
    assertEquals("订单", PathTags.decode("%E8%AE%A2%E5%8D%95"), "UTF-8 escapes");
    assertEquals("a b", PathTags.decode("a%20b"), "a space");
    assertEquals("a+b", PathTags.decode("a+b"), "a plus stays a plus in a path");
    assertEquals("pay/refund", PathTags.decode("pay%2Frefund"), "an escaped slash");
    assertEquals("plain", PathTags.decode("plain"), "nothing to decode");
    assertEquals(
        "\uD83D\uDE00 订单",
        PathTags.decode("\uD83D\uDE00%20订单"),
        "characters sent unescaped (a pair of surrogates among them) beside an escape");
  }

  @Test
  void decode_malformed_refusedWithReason() {
    assertEquals(
        "biz_tag has a truncated %-escape",
        assertThrows(IllegalArgumentException.class, () -> PathTags.decode("a%2")).getMessage());
    assertEquals(
        "biz_tag has a malformed %-escape",
        assertThrows(IllegalArgumentException.class, () -> PathTags.decode("%G0")).getMessage());
    assertEquals(
        "biz_tag is not valid UTF-8",
        assertThrows(IllegalArgumentException.class, () -> PathTags.decode("%FF")).getMessage());
  }
}
