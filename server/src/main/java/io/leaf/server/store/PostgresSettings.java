package io.leaf.server.store;

import com.zaxxer.hikari.HikariConfig;

/**
 * The PostgreSQL JDBC driver's (pgjdbc's) connection properties Leaf sets for a {@code
 * jdbc:postgresql:} URL. Each is a default: a property the URL sets itself wins, as pgjdbc reads
 * URL parameters over the properties it is given.
 *
 * <ul>
 *   <li>{@code connectTimeout=3}, {@code socketTimeout=10} (seconds): an unreachable host or a
 *       reply that never comes is an outage within seconds, as with MySQL, not a thread stuck on a
 *       socket. A segment UPDATE whose reply timed out is never used (its IDs are a gap).
 *   <li>{@code hostRecheckSeconds=2}: on a multi-host URL ({@code jdbc:postgresql://h1,h2,h3/leaf
 *       ?targetServerType=primary}) pgjdbc remembers for this long that a host was down or a
 *       standby, and tries the others first; its default of 10 seconds made the new primary after a
 *       failover wait behind stale entries. The remembered state is only an ordering hint (when no
 *       host qualifies pgjdbc tries them all), so a short window costs a few connection attempts,
 *       never correctness.
 *   <li>{@code ApplicationName=leaf-server}: the name {@code pg_stat_activity} shows.
 * </ul>
 */
final class PostgresSettings {

  static final int CONNECT_TIMEOUT_SECONDS = 3;
  static final int SOCKET_TIMEOUT_SECONDS = 10;
  static final int HOST_RECHECK_SECONDS = 2;

  private PostgresSettings() {}

  static void apply(HikariConfig config) {
    config.addDataSourceProperty("connectTimeout", String.valueOf(CONNECT_TIMEOUT_SECONDS));
    config.addDataSourceProperty("socketTimeout", String.valueOf(SOCKET_TIMEOUT_SECONDS));
    config.addDataSourceProperty("hostRecheckSeconds", String.valueOf(HOST_RECHECK_SECONDS));
    config.addDataSourceProperty("ApplicationName", "leaf-server");
  }
}
