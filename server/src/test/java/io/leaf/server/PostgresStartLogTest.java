package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.ServerProcess;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What an operator reads when the packaged server starts against PostgreSQL. */
@Tag("slow")
class PostgresStartLogTest {

  @Test
  @Timeout(120)
  void main_startOnPostgres_createsTheTableAndNamesServerAndDialect() throws Exception {
    try (TestDatabase db = TestDatabases.postgres();
        ServerProcess server =
            ServerProcess.start(
                "--port",
                "0",
                "--db-url",
                db.url,
                "--db-user",
                db.user,
                "--db-password",
                db.password)) {
      assertTrue(
          server.awaitLine("Leaf listening", 60, TimeUnit.SECONDS),
          "the server started:\n" + server.output());

      String log = server.output();
      assertTrue(
          log.matches(
              "(?s).*leaf_alloc on PostgreSQL 1\\d\\.\\d+.*jOOQ dialect POSTGRES"
                  + ".*update_time \\w+ \\(epoch millis, Leaf's clock\\).*"),
          "the log names the real server and version, the dialect and the table:\n" + log);
    }
  }
}
