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

/** A leaf_alloc Leaf cannot use stops the server at start, as a bad flag does. */
@Tag("slow")
class UnusableTableStartTest {

  @Test
  @Timeout(120)
  void main_maxIdNotAnInteger_oneLineNamingTableColumnAndTypeThenExit2(@TempDir Path dir)
      throws Exception {
    String url = "jdbc:h2:file:" + dir.resolve("leaf").toAbsolutePath();
    try (Connection c = DriverManager.getConnection(url + ";MODE=MySQL", "sa", "");
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE leaf_alloc (biz_tag VARCHAR(128) PRIMARY KEY,"
              + " max_id VARCHAR(20) NOT NULL, step INT NOT NULL, description VARCHAR(256),"
              + " update_time BIGINT NOT NULL)");
    }

    try (ServerProcess server = ServerProcess.start("--port", "0", "--db-url", url)) {
      Integer exit = server.awaitExit(60, TimeUnit.SECONDS);

      assertNotNull(
          exit, "the server must stop, not serve a table it cannot use:\n" + server.output());
      assertEquals(2, exit, server.output());
      assertEquals(
          "leaf-server: table leaf_alloc: column max_id has type CHARACTER VARYING;"
              + " Leaf needs BIGINT",
          server.lines().get(server.lines().size() - 1),
          server.output());
    }
  }
}
