package io.leaf.server.store;

import java.util.Locale;

/**
 * What an H2 JDBC URL says about its database: where it lives (in this process's memory, in a file
 * this process opens, or behind an H2 server), whether another process can open it at the same
 * time, and the settings Leaf adds to it.
 */
public final class H2Url {

  static final String PREFIX = "jdbc:h2:";
  static final String MEM = "jdbc:h2:mem:";

  private H2Url() {}

  /** Whether {@code url} is an H2 URL at all. */
  public static boolean isH2(String url) {
    return url.startsWith(PREFIX);
  }

  /** An H2 database this process opens itself (memory or a file), not one behind a server. */
  public static boolean embedded(String url) {
    if (!isH2(url)) {
      return false;
    }
    String rest = url.substring(PREFIX.length()).toLowerCase(Locale.ROOT);
    return !rest.startsWith("tcp:") && !rest.startsWith("ssl:");
  }

  /** An embedded H2 database kept in a file (not in memory). */
  public static boolean embeddedFile(String url) {
    return embedded(url) && !url.toLowerCase(Locale.ROOT).startsWith(MEM);
  }

  /**
   * Whether no other server can open the database while this one has it: an embedded file database
   * without {@code AUTO_SERVER} on (which lets other processes in through this one) and without
   * {@code FILE_LOCK=NO} (which lets them open the file beside it). An in-memory database is shared
   * by every server of its JVM, and one behind an H2 server ({@code jdbc:h2:tcp:}, {@code
   * jdbc:h2:ssl:}) by every process.
   */
  public static boolean exclusive(String url) {
    if (!embeddedFile(url)) {
      return false;
    }
    String fileLock = setting(url, "FILE_LOCK");
    return !on(setting(url, "AUTO_SERVER"))
        && !(fileLock != null && fileLock.equalsIgnoreCase("NO"));
  }

  /** A boolean setting as H2 reads it: {@code true}, {@code yes} or {@code 1}, any case. */
  static boolean on(String value) {
    return value != null
        && (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("yes") || value.equals("1"));
  }

  /** The value of {@code ;NAME=value} in an H2 URL (names are case-insensitive), or null. */
  static String setting(String url, String name) {
    String[] parts = url.split(";");
    for (int i = 1; i < parts.length; i++) {
      int eq = parts[i].indexOf('=');
      if (eq > 0 && parts[i].substring(0, eq).strip().equalsIgnoreCase(name)) {
        return parts[i].substring(eq + 1).strip();
      }
    }
    return null;
  }
}
