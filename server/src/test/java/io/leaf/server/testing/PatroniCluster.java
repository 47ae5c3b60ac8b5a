package io.leaf.server.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Assumptions;

/**
 * A three-node PostgreSQL cluster under Patroni on 127.0.0.1 for tests, run by {@code
 * scripts/patroni-cluster.sh}: each {@link #start} begins a fresh cluster (synchronous replication
 * on or off) and the JVM stops it when it exits. The system PostgreSQL is never touched.
 *
 * <p>When Patroni cannot run here (no {@code patroni}, {@code etcd} or PostgreSQL 15, or the
 * cluster does not form) the test is skipped with a {@code [leaf-tests] SKIPPED Patroni test} line
 * on stderr, unless {@code LEAF_REQUIRE_PATRONI=1}, which fails it.
 *
 * <p>Not thread-safe; one test drives it. Every script call is bounded.
 */
public final class PatroniCluster {

  public static final int NODES = 3;
  public static final String USER = "postgres";
  private static final int FIRST_PORT = 5441;
  private static final long START_TIMEOUT_SECONDS = 240;
  private static final long NODE_TIMEOUT_SECONDS = 60;

  private static boolean hookAdded;

  private final Path script;
  private final boolean synchronous;

  private PatroniCluster(Path script, boolean synchronous) {
    this.script = script;
    this.synchronous = synchronous;
  }

  /** A fresh cluster, {@code synchronous_mode} as asked; skips the test when it cannot run. */
  public static synchronized PatroniCluster start(boolean synchronous) {
    String unavailable = null;
    PatroniCluster cluster = null;
    for (String program :
        new String[] {"/usr/bin/patroni", "/usr/bin/etcd", "/usr/lib/postgresql/15/bin/postgres"}) {
      if (!Files.isExecutable(Path.of(program))) {
        unavailable = program + " not found (apt-get install patroni etcd-server postgresql-15)";
      }
    }
    if (unavailable == null) {
      try {
        Path script = findScript();
        cluster = new PatroniCluster(script, synchronous);
        if (!hookAdded) {
          hookAdded = true;
          Runtime.getRuntime()
              .addShutdownHook(
                  new Thread(
                      () -> {
                        try {
                          run(script, true, 120, "stop");
                        } catch (IllegalStateException e) {
                          System.err.println(
                              "[leaf-tests] stopping the Patroni cluster failed: "
                                  + e.getMessage());
                        }
                      },
                      "patroni-stop"));
        }
        run(script, synchronous, 120, "stop");
        run(script, synchronous, START_TIMEOUT_SECONDS, "start");
      } catch (IllegalStateException e) {
        unavailable = "the Patroni cluster did not start: " + e.getMessage();
      }
    }
    if (unavailable != null) {
      if ("1".equals(System.getenv("LEAF_REQUIRE_PATRONI"))) {
        throw new IllegalStateException(unavailable + " and LEAF_REQUIRE_PATRONI=1");
      }
      System.err.println("[leaf-tests] SKIPPED Patroni test: " + unavailable);
      Assumptions.abort("SKIPPED: " + unavailable);
    }
    return cluster;
  }

  /** The node holding the leader key, or 0 when none does. */
  public int leader() {
    String out = run(script, synchronous, 30, "leader").strip();
    return out.isEmpty() ? 0 : Integer.parseInt(out);
  }

  /** Kills node {@code n}'s Patroni and PostgreSQL with SIGKILL. */
  public void kill(int n) {
    run(script, synchronous, NODE_TIMEOUT_SECONDS, "kill", Integer.toString(n));
  }

  /** Starts killed node {@code n} again; it rejoins as a replica on its own. */
  public void restart(int n) {
    run(script, synchronous, NODE_TIMEOUT_SECONDS, "restart", Integer.toString(n));
  }

  public String status() {
    return run(script, synchronous, 30, "status");
  }

  /**
   * Database {@code db} through every node, {@code first} first: pgjdbc connects to the first that
   * is the primary ({@code targetServerType=primary}).
   */
  public String multiHostUrl(String db, int first) {
    String hosts =
        IntStream.concat(
                IntStream.of(first), IntStream.rangeClosed(1, NODES).filter(n -> n != first))
            .mapToObj(n -> "127.0.0.1:" + (FIRST_PORT + n - 1))
            .collect(Collectors.joining(","));
    return "jdbc:postgresql://" + hosts + "/" + db + "?targetServerType=primary";
  }

  /** A new, uniquely named database, created on the primary (replicated to the others). */
  public String createDatabase() {
    String name = "leaf_patroni_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(multiHostUrl("postgres", 1), USER, "");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "could not create database " + name + ": " + e.getMessage(), e);
    }
    return name;
  }

  /** Runs the script; its stderr goes to ours, its stdout is returned. */
  private static String run(Path script, boolean synchronous, long timeoutSeconds, String... args) {
    List<String> command = new ArrayList<>(List.of("bash", script.toString()));
    command.addAll(List.of(args));
    String what = String.join(" ", command);
    try {
      Path out = Files.createTempFile("leaf-patroni-", ".out");
      try {
        ProcessBuilder pb =
            new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put("LEAF_PATRONI_SYNC", synchronous ? "1" : "0");
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
          throw new IllegalStateException(what + " did not finish within " + timeoutSeconds + "s");
        }
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
          throw new IllegalStateException(
              what + " exited with " + p.exitValue() + " (its reason is on stderr above)");
        }
        return stdout;
      } finally {
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      throw new IllegalStateException(what + " could not run: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(what + " interrupted", e);
    }
  }

  private static Path findScript() {
    Path cwd = Path.of("").toAbsolutePath();
    for (Path dir = cwd; dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("scripts/patroni-cluster.sh");
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException("scripts/patroni-cluster.sh not found above " + cwd);
  }
}
