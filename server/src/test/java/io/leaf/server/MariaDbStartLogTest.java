package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.ServerProcess;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What an operator reads when the packaged server starts against MariaDB. */
@Tag("slow")
class MariaDbStartLogTest {

  @Test
  @Timeout(120)
  void main_startOnMariaDb_namesMariaDbAndWarnsOfNoVersionMismatch() throws Exception {
    try (TestDatabase db = TestDatabases.mariaDb();
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
      assertFalse(
          log.contains("Version mismatch"),
          "no warning that MariaDB is older than jOOQ's dialect supports:\n" + log);
      assertTrue(
          log.matches("(?s).*leaf_alloc on MariaDB 1\\d\\.\\d+\\.\\d+.*jOOQ dialect MARIADB.*"),
          "the log names the real server and version and the dialect used:\n" + log);
      assertTrue(
          log.matches(
              "(?s).*Leaf listening on port \\d+ \\(.* ledger=on"
                  + " ledger-retention=2592000s( \\S+)* server=[^ :]+:0/\\d+-[0-9a-f]{6}\\).*"),
          "the start line shows the ledger and the server's identity:\n" + log);
    }
  }
}
