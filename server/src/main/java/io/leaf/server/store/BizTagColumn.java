package io.leaf.server.store;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.jooq.SQLDialect;

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

  /**
   * Runs {@code work}, a statement that finds {@code bizTag}'s row. None runs for a name the column
   * cannot hold, and a name the database cannot compare with the column's character set
   * (MySQL/MariaDB's "Illegal mix of collations", say on a latin1 table) is no row's name either:
   * both are {@link TagNotFoundException}.
   */
  <T> T byName(String bizTag, Supplier<T> work) {
    if (!mayHold(bizTag)) {
      throw new TagNotFoundException(bizTag);
    }
    try {
      return work.get();
    } catch (StoreRejectedException e) {
      if (DatabaseErrors.isCollationMix(e)) {
        throw new TagNotFoundException(bizTag);
      }
      throw e;
    }
  }

  /**
   * Whether {@code biz_tag}'s character set is ASCII: on MySQL/MariaDB as {@code
   * information_schema} says (Leaf's own table is {@code CHARACTER SET ascii} there); never on
   * PostgreSQL and H2, whose columns take the database's Unicode as they are. A schema that cannot
   * be read says no: every name is then looked up.
   */
  static boolean isAscii(Connection c, String catalog, String table, SQLDialect dialect) {
    if (dialect.family() != SQLDialect.MYSQL && dialect.family() != SQLDialect.MARIADB) {
      return false;
    }
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT CHARACTER_SET_NAME FROM"
                + " information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                + " AND COLUMN_NAME = 'biz_tag'")) {
      s.setString(1, catalog);
      s.setString(2, table);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() && "ascii".equalsIgnoreCase(rs.getString(1));
      }
    } catch (SQLException e) {
      return false;
    }
  }

  /** Whether a unique index (or the primary key) holds {@code biz_tag} alone. */
  static boolean isUnique(DatabaseMetaData md, String catalog, String schema, String table)
      throws SQLException {
    Map<String, List<String>> uniqueIndexes = new LinkedHashMap<>();
    try (ResultSet rs = md.getIndexInfo(catalog, schema, table, true, true)) {
      while (rs.next()) {
        String column = rs.getString("COLUMN_NAME");
        if (rs.getShort("TYPE") != DatabaseMetaData.tableIndexStatistic && column != null) {
          uniqueIndexes
              .computeIfAbsent(rs.getString("INDEX_NAME"), k -> new ArrayList<>())
              .add(column.toLowerCase(Locale.ROOT));
        }
      }
    }
    return uniqueIndexes.containsValue(List.of("biz_tag"));
  }
}
