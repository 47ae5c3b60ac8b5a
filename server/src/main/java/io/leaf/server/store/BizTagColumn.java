package io.leaf.server.store;

/**
 * The names the table's {@code biz_tag} column can hold, read once when the store opens the table:
 * a name outside them is no row's name, so its tag is NOT_FOUND without a query. Immutable.
 *
 * <p>What is read: whether the column's character set is ASCII (MySQL/MariaDB {@code CHARACTER SET
 * ascii}, as Leaf creates it there) and its length in characters.
 *
 * <p>Never rules out a name a row could match: the length is compared in code points (PostgreSQL
 * and MySQL count characters so, H2 counts UTF-16 units, which are never fewer) and without
 * trailing spaces (a PAD SPACE collation, or a {@code CHAR} column on any database, matches a name
 * with more of them than the column holds); a column whose character set is not known to be ASCII
 * is not judged by character.
 *
 * @param type the column's type as the metadata names it, for the log
 * @param asciiOnly true when the column's character set is ASCII
 * @param maxLength the most characters the column holds; {@link #UNBOUNDED} when not judged
 */
record BizTagColumn(String type, boolean asciiOnly, int maxLength) {

  /** {@link #maxLength} of a column whose length is not judged (TEXT, CLOB, no length). */
  static final int UNBOUNDED = Integer.MAX_VALUE;

  /** A column nothing is known of: every name may exist. */
  static final BizTagColumn UNKNOWN = new BizTagColumn("unknown", false, UNBOUNDED);

  BizTagColumn {
    if (maxLength < 1) {
      throw new IllegalArgumentException("maxLength must be positive: " + maxLength);
    }
  }

  /** Whether a row could be named {@code name}; cost: one pass over the name at most. */
  boolean mayHold(String name) {
    int end = name.length();
    while (end > 0 && name.charAt(end - 1) == ' ') {
      end--;
    }
    if (asciiOnly) {
      for (int i = 0; i < end; i++) {
        if (name.charAt(i) >= 0x80) {
          return false;
        }
      }
    }
    // A name of at most maxLength UTF-16 units has at most as many code points.
    return end <= maxLength || name.codePointCount(0, end) <= maxLength;
  }

  /** For the start log: {@code biz_tag VARCHAR(128) ascii}. */
  String describe() {
    return "biz_tag "
        + type
        + (maxLength == UNBOUNDED ? "" : "(" + maxLength + ")")
        + (asciiOnly ? " ascii" : "");
  }
}
