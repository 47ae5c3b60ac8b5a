package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leaf.server.store.DataSources;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class MariaDbWorkerLeaseStoreTest extends WorkerLeaseStoreContractTest {
  @Override
  protected TestDatabase database() {
    return TestDatabases.mariaDb();
  }

  @Test
  void leases_userWithSelectInsertUpdateOnly_work() throws Exception {
    store.createSchemaIfMissing();
    String user = "leaf_w_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    String password = UUID.randomUUID().toString();
    try (Connection c = DriverManager.getConnection(db.url, db.user, db.password);
        Statement s = c.createStatement()) {
      s.execute("CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + password + "'");
      try {
        s.execute(
            "GRANT SELECT, INSERT, UPDATE ON " + db.name + ".leaf_worker TO '" + user + "'@'%'");
        try (var pool = io.leaf.server.store.DataSources.create(db.url, user, password, 2)) {
          JooqWorkerLeaseStore limited =
              new JooqWorkerLeaseStore(pool, DataSources.dialectOf(db.url), InstantSource.system());
          limited.createSchemaIfMissing();
          WorkerLease lease = limited.claim(0, 3, "limited", Duration.ofSeconds(30)).orElseThrow();
          limited.renew(lease.workerId(), "limited", Duration.ofSeconds(30), 5, 0);
          limited.release(lease.workerId(), "limited", 5);
          assertEquals(
              5,
              limited
                  .claim(lease.workerId(), lease.workerId(), "again", Duration.ofSeconds(30))
                  .orElseThrow()
                  .lastTimestampMs(),
              "released and reclaimed");
        }
      } finally {
        s.execute("DROP USER IF EXISTS '" + user + "'@'%'");
      }
    }
  }
}
