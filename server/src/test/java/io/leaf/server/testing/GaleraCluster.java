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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Assumptions;

/**
 * A three-node MariaDB Galera cluster on 127.0.0.1 for tests, run by {@code
 * scripts/galera-cluster.sh}: started once per JVM and stopped when the JVM exits, unless {@code
 * LEAF_GALERA_KEEP=1}. A cluster that was already fully up is reused and left running (it is
 * someone else's, or kept on purpose); {@code .ci/run} stops whatever is left at its end.
 *
 * <p>When Galera cannot run here (no {@code /usr/lib/galera/libgalera_smm.so}, no {@code mariadbd},
 * or the cluster does not form) the test is skipped with a {@code [leaf-tests] SKIPPED Galera test}
 * line on stderr, unless {@code LEAF_REQUIRE_GALERA=1} (set by {@code .ci/run}), which fails it.
 * The script's environment ({@code LEAF_GALERA_DIR}, {@code LEAF_GALERA_PORT}, ...) is passed
 * through.
 *
 * <p>Thread-safe; {@link #kill} and {@link #rejoin} block until the script is done (each bounded).
 */
public final class GaleraCluster {

  public static final int NODES = 3;
  public static final String USER = "root";
  public static final String PASSWORD = "";

  private static final Path PROVIDER = Path.of("/usr/lib/galera/libgalera_smm.so");
  private static final String OPTIONS = "useSSL=false&allowPublicKeyRetrieval=true";
  private static final long START_TIMEOUT_SECONDS = 300;
  private static final long NODE_TIMEOUT_SECONDS = 180;
  private static final Pattern PORT_LINE = Pattern.compile("node(\\d) sql=(\\d+) .*");

  private static GaleraCluster instance;
  private static String unavailable;

  private final Path script;
  private final int[] sqlPorts;

  private GaleraCluster(Path script, int[] sqlPorts) {
    this.script = script;
    this.sqlPorts = sqlPorts;
  }

  /**
   * The running cluster, started on first use; skips the calling test (or fails it under {@code
   * LEAF_REQUIRE_GALERA=1}) when Galera cannot run here. A failed start is not retried.
   */
  public static synchronized GaleraCluster get() {
    if (instance == null && unavailable == null) {
      try {
        instance = start();
      } catch (Unavailable e) {
        unavailable = e.getMessage();
      }
    } else if (instance != null) {
      // An earlier test may have left a node down or the cluster without quorum: `start` is
      // idempotent, rejoins what is missing and starts over a cluster with no primary component.
      try {
        run(instance.script, START_TIMEOUT_SECONDS, "start");
      } catch (ScriptFailure e) {
        skip(
            "the Galera cluster could not be brought back after an earlier test: "
                + e.getMessage());
      }
    }
    if (instance == null) {
      skip(unavailable);
    }
    return instance;
  }

  /**
   * Skips the calling test with a {@code [leaf-tests] SKIPPED Galera test} line, or fails it under
   * {@code LEAF_REQUIRE_GALERA=1}.
   */
  public static void skip(String why) {
    if ("1".equals(System.getenv("LEAF_REQUIRE_GALERA"))) {
      throw new IllegalStateException(why + " and LEAF_REQUIRE_GALERA=1");
    }
    System.err.println("[leaf-tests] SKIPPED Galera test: " + why);
    Assumptions.abort("SKIPPED: " + why);
  }

  private static GaleraCluster start() throws Unavailable {
    if (!Files.exists(PROVIDER)) {
      throw new Unavailable(PROVIDER + " not found (apt-get install galera-4)");
    }
    if (!Files.isExecutable(Path.of("/usr/sbin/mariadbd")) && !onPath("mariadbd")) {
      throw new Unavailable("mariadbd not found (apt-get install mariadb-server)");
    }
    Path script = findScript();
    AtomicBoolean stopAtExit = new AtomicBoolean(!"1".equals(System.getenv("LEAF_GALERA_KEEP")));
    // Registered before start, so a start that times out half way is cleaned up too.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (stopAtExit.get()) {
                    stopQuietly(script);
                  }
                },
                "galera-stop"));
    try {
      String started = run(script, START_TIMEOUT_SECONDS, "start");
      if (started.contains("already running")) {
        stopAtExit.set(false);
      }
      return new GaleraCluster(script, parsePorts(run(script, 30, "ports")));
    } catch (ScriptFailure e) {
      throw new Unavailable("the Galera cluster did not start: " + e.getMessage());
    }
  }

  /** Kills node {@code n} (1 to 3) with SIGKILL. */
  public void kill(int n) {
    checkNode(n);
    runOrFail(NODE_TIMEOUT_SECONDS, "kill", Integer.toString(n));
  }

  /**
   * Restarts killed node {@code n} at its recovered position; returns once it is Synced.
   *
   * @throws QuorumLost the other nodes lost their primary component on their own
   */
  public void rejoin(int n) {
    checkNode(n);
    try {
      run(script, NODE_TIMEOUT_SECONDS, "rejoin", Integer.toString(n));
    } catch (ScriptFailure e) {
      if (e.exitCode == 3) {
        throw new QuorumLost(
            "node "
                + n
                + " could not rejoin: the other nodes lost their primary"
                + " component although only node "
                + n
                + " was down (a machine too loaded for"
                + " Galera's failure detector); "
                + e.getMessage());
      }
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /**
   * The surviving nodes lost quorum on their own: the cluster, not the code under test, failed. A
   * test checks what it can (no ID issued twice) and then {@link #skip}s.
   */
  public static final class QuorumLost extends RuntimeException {
    QuorumLost(String message) {
      super(message);
    }
  }

  /** The output of {@code galera-cluster.sh status}: one line per node. */
  public String status() {
    return runOrFail(30, "status");
  }

  public int sqlPort(int n) {
    checkNode(n);
    return sqlPorts[n - 1];
  }

  /** {@code jdbc:mysql://127.0.0.1:PORT/} of node {@code n}, to append a database name to. */
  public String nodeBaseUrl(int n) {
    return "jdbc:mysql://127.0.0.1:" + sqlPort(n) + "/";
  }

  /** Database {@code db} on node {@code n} alone. */
  public String nodeUrl(int n, String db) {
    return nodeBaseUrl(n) + db + "?" + OPTIONS;
  }

  /**
   * Database {@code db} through every node, {@code first} first, then the others in order:
   * Connector/J's failover mode connects to the first node that answers. {@code
   * failOverReadOnly=false}, or a connection that failed over would be read-only.
   */
  public String multiHostUrl(String db, int first) {
    checkNode(first);
    String hosts =
        IntStream.concat(
                IntStream.of(first), IntStream.rangeClosed(1, NODES).filter(n -> n != first))
            .mapToObj(n -> "127.0.0.1:" + sqlPort(n))
            .collect(Collectors.joining(","));
    return "jdbc:mysql://" + hosts + "/" + db + "?" + OPTIONS + "&failOverReadOnly=false";
  }

  /** {@link #multiHostUrl(String, int)} with node 1 first. */
  public String multiHostUrl(String db) {
    return multiHostUrl(db, 1);
  }

  /**
   * A new, uniquely named database, created on node 1 (Galera replicates the DDL to the others) and
   * dropped on {@link Database#close()} through whichever node answers.
   */
  public Database createDatabase() {
    String name = "leaf_galera_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c =
            DriverManager.getConnection(nodeBaseUrl(1) + "?" + OPTIONS, USER, PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "could not create database "
              + name
              + " on node 1 (port "
              + sqlPort(1)
              + "): "
              + e.getMessage(),
          e);
    }
    return new Database(name);
  }

  /** A database on the cluster; {@link #close()} drops it. */
  public final class Database implements AutoCloseable {
    public final String name;

    private Database(String name) {
      this.name = name;
    }

    @Override
    public void close() {
      SQLException last = null;
      for (int n = 1; n <= NODES; n++) {
        try (Connection c =
                DriverManager.getConnection(nodeBaseUrl(n) + "?" + OPTIONS, USER, PASSWORD);
            Statement s = c.createStatement()) {
          s.execute("DROP DATABASE IF EXISTS " + name);
          return;
        } catch (SQLException e) {
          last = e;
        }
      }
      throw new IllegalStateException("could not drop database " + name + " on any node", last);
    }
  }

  private static void stopQuietly(Path script) {
    try {
      run(script, 120, "stop");
    } catch (ScriptFailure e) {
      System.err.println("[leaf-tests] stopping the Galera cluster failed: " + e.getMessage());
    }
  }

  private String runOrFail(long timeoutSeconds, String... args) {
    try {
      return run(script, timeoutSeconds, args);
    } catch (ScriptFailure e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /**
   * Runs the script; its stderr (progress, timings, errors) goes to ours, its stdout is returned.
   */
  private static String run(Path script, long timeoutSeconds, String... args) throws ScriptFailure {
    List<String> command = new ArrayList<>();
    command.add("bash");
    command.add(script.toString());
    command.addAll(List.of(args));
    String what = String.join(" ", command);
    try {
      Path out = Files.createTempFile("leaf-galera-", ".out");
      try {
        Process p =
            new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
          throw new ScriptFailure(what + " did not finish within " + timeoutSeconds + "s");
        }
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
          throw new ScriptFailure(
              what + " exited with " + p.exitValue() + " (its reason is on stderr above)",
              p.exitValue());
        }
        return stdout;
      } finally {
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      throw new ScriptFailure(what + " could not run: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ScriptFailure(what + " interrupted");
    }
  }

  private static int[] parsePorts(String output) throws ScriptFailure {
    int[] ports = new int[NODES];
    for (String line : output.split("\n")) {
      Matcher m = PORT_LINE.matcher(line.strip());
      if (m.matches()) {
        int n = Integer.parseInt(m.group(1));
        if (n >= 1 && n <= NODES) {
          ports[n - 1] = Integer.parseInt(m.group(2));
        }
      }
    }
    for (int port : ports) {
      if (port == 0) {
        throw new ScriptFailure(
            "galera-cluster.sh ports printed no SQL port for every node: " + output);
      }
    }
    return ports;
  }

  /** The script, found from the working directory (server/ under Maven) or its parent. */
  private static Path findScript() throws Unavailable {
    Path cwd = Path.of("").toAbsolutePath();
    for (Path dir = cwd; dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("scripts/galera-cluster.sh");
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
    }
    throw new Unavailable("scripts/galera-cluster.sh not found above " + cwd);
  }

  private static boolean onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return false;
  }

  private static void checkNode(int n) {
    if (n < 1 || n > NODES) {
      throw new IllegalArgumentException("node must be between 1 and " + NODES + ": " + n);
    }
  }

  /** Galera cannot run here: the test is skipped (or failed under LEAF_REQUIRE_GALERA=1). */
  private static final class Unavailable extends Exception {
    Unavailable(String message) {
      super(message);
    }
  }

  /** The script failed or timed out. */
  private static final class ScriptFailure extends Exception {
    /** The script's exit code; -1 when it did not exit by itself. */
    final int exitCode;

    ScriptFailure(String message) {
      this(message, -1);
    }

    ScriptFailure(String message, int exitCode) {
      super(message);
      this.exitCode = exitCode;
    }
  }
}
