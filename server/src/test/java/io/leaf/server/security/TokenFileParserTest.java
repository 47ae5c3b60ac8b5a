package io.leaf.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The token file's format: every column's rule, line-numbered one-line errors, no hash echoed. */
class TokenFileParserTest {

  /** The SHA-256 of "orders-secret" (printf %s orders-secret | sha256sum). */
  static final String ORDERS_HASH =
      "sha256:" + java.util.HexFormat.of().formatHex(sha256("orders-secret"));

  private static final String OTHER_HASH = "sha256:" + "ab".repeat(32);

  static byte[] sha256(String token) {
    try {
      return java.security.MessageDigest.getInstance("SHA-256")
          .digest(token.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  private static IllegalArgumentException refused(String text) {
    return assertThrows(IllegalArgumentException.class, () -> TokenFileParser.parse(text));
  }

  @Test
  void parse_commentsBlankLinesTabsAndEveryColumn_read() {
    List<TokenEntry> tokens =
        TokenFileParser.parse(
            """
            # who may use what
            orders  %s reserve orders,orders.*   5000/s:20000   # the orders team

            \tops\t%s\tadmin\t*
            """
                .formatted(ORDERS_HASH, OTHER_HASH));
    assertEquals(2, tokens.size());
    TokenEntry orders = tokens.get(0);
    assertEquals("orders", orders.name());
    assertEquals(Role.RESERVE, orders.role());
    assertEquals(new IdRate(5000, 20000), orders.rate());
    assertTrue(orders.scope().allows("orders") && orders.scope().allows("orders.eu"));
    assertFalse(orders.scope().allows("ordersx") || orders.scope().allows("billing"));
    assertEquals("ops", tokens.get(1).name());
    assertTrue(tokens.get(1).scope().all());
    assertNull(tokens.get(1).rate(), "no RATE: no limit");
    assertFalse(orders.toString().contains(ORDERS_HASH.substring(7, 20)), "no digest shown");
  }

  @Test
  void parse_emptyFile_noTokens() {
    assertEquals(List.of(), TokenFileParser.parse("# nobody yet\n"));
  }

  @Test
  void parse_badHash_lineNumberAndNeverTheValue() {
    String pasted = "the-raw-token-by-mistake";
    IllegalArgumentException e = refused("# comment\nteam " + pasted + " issue *\n");
    assertTrue(e.getMessage().startsWith("line 2: HASH of team"), e.getMessage());
    assertFalse(e.getMessage().contains(pasted), "the column is never echoed: " + e.getMessage());
    assertFalse(e.getMessage().contains("\n"), "one line");
    assertTrue(refused("team sha256:abc issue *").getMessage().contains("64 hex digits"));
  }

  @Test
  void parse_eachBrokenRule_namedWithItsLine() {
    assertEquals(
        "line 1: expected NAME HASH ROLE TAGS [RATE], got 3 fields",
        refused("a " + OTHER_HASH + " issue").getMessage());
    assertTrue(
        refused("bad/name " + OTHER_HASH + " issue *")
            .getMessage()
            .startsWith("line 1: NAME (the first column) must be"));
    assertEquals(
        "line 1: ROLE of a must be issue, reserve or admin",
        refused("a " + OTHER_HASH + " root *").getMessage());
    assertEquals(
        "line 1: TAGS has an empty entry (two commas, or one at an end) (a)",
        refused("a " + OTHER_HASH + " issue a,,b").getMessage());
    assertTrue(
        refused("a " + OTHER_HASH + " issue x,*orders")
            .getMessage()
            .contains("TAGS entry 2 may hold '*' only at its end"));
    assertTrue(
        refused("a " + OTHER_HASH + " issue or*ders").getMessage().contains("'*' only at its end"));
    assertTrue(
        refused("a " + OTHER_HASH + " issue * 5000")
            .getMessage()
            .contains("RATE must be like 5000/s or 5000/s:20000"));
    assertTrue(
        refused("a " + OTHER_HASH + " issue * 0/s")
            .getMessage()
            .contains("between 1 and 1000000000"));
    assertTrue(
        refused("a " + OTHER_HASH + " issue * 5/s:-1").getMessage().contains("plain digits"));
  }

  @Test
  void parse_secretInAnyColumn_neverEchoed() {
    String secret = "s3cr3t-t0ken-pasted";
    for (String text :
        List.of(
            OTHER_HASH + " " + secret + " issue *",
            secret + "/x " + OTHER_HASH + " issue *",
            "a " + OTHER_HASH + " " + secret + " *",
            "a " + OTHER_HASH + " issue " + secret + "*x",
            "a " + OTHER_HASH + " issue * " + secret,
            "a " + OTHER_HASH + " issue * 5/s:" + secret)) {
      String message = refused(text).getMessage();
      assertFalse(
          message.contains(secret) || message.contains(OTHER_HASH.substring(7, 30)),
          text + " -> " + message);
    }
  }

  @Test
  void parse_sameNameOrSameHashTwice_refusedNamingBoth() {
    assertEquals(
        "line 3: NAME a is already on line 1",
        refused("a " + OTHER_HASH + " issue *\n\n" + "a " + ORDERS_HASH + " issue *").getMessage());
    assertEquals(
        "line 2: b has the same HASH as a (one token, one line)",
        refused(
                "a "
                    + OTHER_HASH
                    + " issue *\nb "
                    + OTHER_HASH.toUpperCase().replace("SHA256", "sha256")
                    + " admin *")
            .getMessage());
  }

  @Test
  void rate_withoutBurst_burstIsOneSecond() {
    assertEquals(new IdRate(5000, 5000), IdRate.parse("5000/s"));
    assertEquals("5000/s:20000", IdRate.parse("5000/s:20000").toString());
    assertThrows(IllegalArgumentException.class, () -> IdRate.parse("5000/s:"));
    assertThrows(IllegalArgumentException.class, () -> IdRate.parse("/s"));
    assertThrows(IllegalArgumentException.class, () -> IdRate.parse("5000/m"));
  }

  @Test
  void scope_exactPrefixAndAll() {
    TagScope scope = TagScope.parse("billing,orders.*");
    assertTrue(scope.allows("billing"));
    assertFalse(scope.allows("billing.eu"), "an exact name is not a prefix");
    assertTrue(scope.allows("orders.") && scope.allows("orders.eu#2026"));
    assertFalse(scope.allows("orders"), "orders.* needs the dot");
    assertTrue(TagScope.parse("*").allows("anything"));
  }
}
