package io.leaf.server.db;

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

  /**
   * The URL to connect with. An H2 URL gets what Leaf's SQL and guarantees need, each only when the
   * URL does not set it itself:
   *
   * <ul>
   *   <li>{@code MODE=MySQL}: the DDL and {@code LAST_INSERT_ID(expr)} exist only in H2's MySQL
   *       mode.
   *   <li>{@code WRITE_DELAY=0}: H2 otherwise writes commits to its file up to half a second later,
   *       and a segment whose {@code max_id} bump dies with a killed process would be handed out
   *       again after a restart.
   *   <li>{@code DB_CLOSE_DELAY=-1} for {@code jdbc:h2:mem:name}: an in-memory database is dropped
   *       when its last connection closes, which a pool may do at any time (and the next connection
   *       would start from an empty table); with it the database lives as long as the process.
   *   <li>{@code DB_CLOSE_ON_EXIT=FALSE} for a database this process opens itself: H2 would
   *       otherwise close it in a JVM shutdown hook of its own, racing the server's, and the
   *       graceful stop's hand-back and worker-ID release would find it closed. The server closes
   *       it instead, after them (the store's {@code DataSources.close}). Not with {@code
   *       AUTO_SERVER} on, which H2 does not allow together with it.
   * </ul>
   */
  public static String connectionUrl(String url) {
    if (!isH2(url)) {
      return url;
    }
    StringBuilder with = new StringBuilder(url);
    if (setting(url, "MODE") == null) {
      with.append(";MODE=MySQL");
    }
    if (setting(url, "WRITE_DELAY") == null) {
      with.append(";WRITE_DELAY=0");
    }
    if (url.startsWith(MEM) && setting(url, "DB_CLOSE_DELAY") == null) {
      with.append(";DB_CLOSE_DELAY=-1");
    }
    // H2 refuses the two together ("Feature not supported"): with AUTO_SERVER on, H2's own hook
    // closes the database, so a graceful stop's hand-back may find it closed (a gap, no repeat).
    if (embedded(url)
        && setting(url, "DB_CLOSE_ON_EXIT") == null
        && !on(setting(url, "AUTO_SERVER"))) {
      with.append(";DB_CLOSE_ON_EXIT=FALSE");
    }
    return with.toString();
  }

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
  public static boolean on(String value) {
    return value != null
        && (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("yes") || value.equals("1"));
  }

  /** The value of {@code ;NAME=value} in an H2 URL (names are case-insensitive), or null. */
  public static String setting(String url, String name) {
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
