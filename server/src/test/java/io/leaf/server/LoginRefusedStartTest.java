package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.ServerProcess;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A login the database refuses, or a database it does not have, stops the server at start with exit
 * code 2 and one line naming the flags to fix: no retry can make them work.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@Order(1) // among the longest: started first
@ResourceLock("LoginRefusedStartTest")
class LoginRefusedStartTest {

  @Test
  @Timeout(120)
  void main_mariaDbWrongPassword_exit2NamingCredentialFlags() throws Exception {
    try (TestDatabase db = TestDatabases.mariaDb()) {
      TestDatabase.Login login = db.createUser("ALL");
      assertRefused(
          "--db-user and --db-password",
          "--db-url",
          db.url,
          "--db-user",
          login.user(),
          "--db-password",
          login.password() + "-wrong");
    }
  }

  @Test
  @Timeout(120)
  void main_mariaDbUnknownDatabase_exit2NamingDbUrl() throws Exception {
    try (TestDatabase db = TestDatabases.mariaDb()) {
      assertRefused(
          "--db-url",
          "--db-url",
          db.url.replace(db.name, db.name + "_missing"),
          "--db-user",
          db.user,
          "--db-password",
          db.password);
    }
  }

  @Test
  @Timeout(120)
  void main_postgresUnknownRole_exit2NamingCredentialFlags() throws Exception {
    try (TestDatabase db = TestDatabases.postgres()) {
      assertRefused(
          "--db-user and --db-password",
          "--db-url",
          db.url,
          "--db-user",
          db.name + "_no_such_role",
          "--db-password",
          "x");
    }
  }

  @Test
  @Timeout(120)
  void main_postgresUnknownDatabase_exit2NamingDbUrl() throws Exception {
    try (TestDatabase db = TestDatabases.postgres()) {
      assertRefused(
          "--db-url",
          "--db-url",
          db.url.replace(db.name, db.name + "_missing"),
          "--db-user",
          db.user,
          "--db-password",
          db.password);
    }
  }

  private static void assertRefused(String flags, String... args) throws Exception {
    String[] all = new String[args.length + 2];
    all[0] = "--port";
    all[1] = "0";
    System.arraycopy(args, 0, all, 2, args.length);
    try (ServerProcess server = ServerProcess.start(all)) {
      Integer exit = server.awaitExit(60, TimeUnit.SECONDS);
      assertNotNull(exit, "the server must exit, not retry:\n" + server.output());
      assertEquals(2, exit, server.output());
      List<String> lines = server.lines();
      String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1);
      assertTrue(
          last.startsWith("leaf-server: ") && last.contains("(check " + flags + ")"),
          "the last line names " + flags + ": " + last);
    }
  }
}
