package io.leaf.server.testing;

import java.util.function.Supplier;

/**
 * The three databases a test runs on, for {@code @EnumSource}: a fresh H2 file, a MariaDB and a
 * PostgreSQL database ({@link TestDatabases}; the latter two skip when unreachable).
 */
public enum DatabaseKind {
  H2(TestDatabases::h2),
  MARIADB(TestDatabases::mariaDb),
  POSTGRES(TestDatabases::postgres);

  private final Supplier<TestDatabase> open;

  DatabaseKind(Supplier<TestDatabase> open) {
    this.open = open;
  }

  /** A new, empty database of this kind; closing it drops it. */
  public TestDatabase open() {
    return open.get();
  }
}
