package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.leaf.server.testing.ServerProcess;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A --region its database contradicts stops the server at start, as a bad flag does. */
@Tag("slow")
class RegionStartTest {

  @Test
  @Timeout(120)
  void main_regionContradictsDatabase_oneLineNamingBothThenExit2(@TempDir Path dir)
      throws Exception {
    String url = "jdbc:h2:file:" + dir.resolve("leaf").toAbsolutePath() + ";MODE=MySQL";
    try (Connection c = DriverManager.getConnection(url, "sa", "");
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE leaf_region (id INT NOT NULL PRIMARY KEY, rule_name VARCHAR(32) NOT NULL,"
              + " region INT NOT NULL, regions INT NOT NULL, update_time BIGINT NOT NULL)");
      s.execute("INSERT INTO leaf_region VALUES (1, 'high-bits', 0, 2, 0)");
    }

    try (ServerProcess server =
        ServerProcess.start("--port", "0", "--db-url", url, "--region", "1/2")) {
      Integer exit = server.awaitExit(60, TimeUnit.SECONDS);

      assertNotNull(
          exit, "the server must stop, not issue another region's IDs:\n" + server.output());
      assertEquals(2, exit, server.output());
      assertEquals(
          "leaf-server: --region 1/2 contradicts the database's region 0/2 (table"
              + " leaf_region)",
          server.lines().get(server.lines().size() - 1),
          server.output());
    }
  }
}
