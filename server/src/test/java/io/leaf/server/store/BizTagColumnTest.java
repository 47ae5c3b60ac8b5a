package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The names a {@code biz_tag} column can hold: its character set and its length. */
class BizTagColumnTest {

  private static final BizTagColumn ASCII_128 = new BizTagColumn("VARCHAR", true, 128);
  private static final BizTagColumn UNICODE_8 = new BizTagColumn("VARCHAR", false, 8);

  @Test
  void mayHold_asciiColumn_nonAsciiNameRuledOut() {
    assertTrue(ASCII_128.mayHold("order.v2:x-1_A"));
    assertTrue(ASCII_128.mayHold("a b/c~\u007f"), "every ASCII character, not only CreateTag's");
    assertFalse(ASCII_128.mayHold("订单"));
    assertFalse(ASCII_128.mayHold("caf\u00e9"), "Latin-1 is not ASCII");
    assertFalse(ASCII_128.mayHold("tag-\uD83D\uDE00"), "a character outside the BMP");
    assertFalse(ASCII_128.mayHold("order\u202E"), "a right-to-left override");
  }

  @Test
  void mayHold_unicodeColumn_anyCharacterUpToItsLength() {
    assertTrue(UNICODE_8.mayHold("订单"));
    assertTrue(
        UNICODE_8.mayHold("\uD83D\uDE00".repeat(8)),
        "8 code points in 16 UTF-16 units: counted as the database counts characters");
    assertFalse(UNICODE_8.mayHold("\uD83D\uDE00".repeat(9)));
    assertTrue(UNICODE_8.mayHold("abcdefgh"));
    assertFalse(UNICODE_8.mayHold("abcdefghi"));
  }

  @Test
  void mayHold_trailingSpaces_neverCountTowardTheLength() {
    assertTrue(
        UNICODE_8.mayHold("abcdefgh" + " ".repeat(100)),
        "a PAD SPACE collation matches the row abcdefgh");
    assertFalse(UNICODE_8.mayHold(" abcdefgh"), "a leading space counts");
    assertFalse(UNICODE_8.mayHold("abcdefgh" + " ".repeat(10) + "x"));
    assertTrue(UNICODE_8.mayHold("        "), "only spaces: the empty name's row, if any");
  }

  @Test
  void mayHold_unknownColumn_everyNameMayExist() {
    assertTrue(BizTagColumn.UNKNOWN.mayHold("订单".repeat(1000)));
  }

  @Test
  void describe_namesTypeLengthAndCharset() {
    assertEquals("biz_tag VARCHAR(128) ascii", ASCII_128.describe());
    assertEquals(
        "biz_tag text", new BizTagColumn("text", false, BizTagColumn.UNBOUNDED).describe());
  }

  @Test
  void new_lengthNotPositive_refused() {
    assertThrows(IllegalArgumentException.class, () -> new BizTagColumn("VARCHAR", false, 0));
  }
}
