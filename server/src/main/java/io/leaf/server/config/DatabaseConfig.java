package io.leaf.server.config;

import io.leaf.server.store.DataSources;

/**
 * Where the database is and who logs in; {@link #toString} redacts the URL's secrets and never
 * shows the password.
 *
 * @param url JDBC URL of MySQL/MariaDB, PostgreSQL or H2
 * @param user database user
 * @param password database password
 */
public record DatabaseConfig(String url, String user, String password) {

  static DatabaseConfig from(FlagValues v) {
    String url = v.get(DatabaseFlags.DB_URL);
    DataSources.urlProblem(url)
        .ifPresent(
            problem -> {
              throw new IllegalArgumentException("--db-url " + problem);
            });
    return new DatabaseConfig(url, v.get(DatabaseFlags.DB_USER), v.get(DatabaseFlags.DB_PASSWORD));
  }

  @Override
  public String toString() {
    return "db-url=" + DataSources.redact(url) + " db-user=" + user;
  }
}
