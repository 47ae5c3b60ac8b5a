package io.leaf.server;

import io.leaf.server.config.ServerConfig;
import io.leaf.server.db.StoreWarmUp;
import io.leaf.server.logging.LogLevels;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.UnusableTableException;
import io.leaf.server.threads.ServerThreads;
import io.leaf.server.wiring.LeafServerBuilder;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.LoggerFactory;

/**
 * The {@code leaf-server} command: reads the flags, starts the production server and serves until
 * SIGTERM; exits 2 with a one-line reason when the flags, the port or the database cannot be used.
 */
public final class Main {

  /** The exit code of every refusal to start: a bad flag, a busy port, an unusable table. */
  static final int USAGE = 2;

  private Main() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.print(ServerConfig.help());
      return;
    }
    ServerConfig config;
    try {
      config = ServerConfig.parse(args, System::getenv);
    } catch (IllegalArgumentException e) {
      exit("leaf-server: " + e.getMessage());
      return;
    }
    // Logging first, on this thread alone: a logger used on another thread while SLF4J
    // initialises is substituted, and SLF4J then prints its own warning lines on stderr.
    LogLevels.apply(config.ops().logLevel());
    // jOOQ's and the driver's classes load on a second core while the port is bound
    // (docs/benchmarks.md, P12).
    ServerThreads.warmUp(() -> StoreWarmUp.run(config.database().url()));
    LeafServer server;
    AtomicReference<LeafServer> started = new AtomicReference<>();
    try {
      server =
          LeafServerBuilder.forConfig(config)
              .build()
              .onUnusableLater(e -> refusedLater(e, started))
              .start();
      started.set(server);
    } catch (UnusableTableException | IllegalArgumentException e) {
      exit("leaf-server: " + e.getMessage());
      return;
    } catch (IOException e) {
      exit("leaf-server: cannot listen on port " + config.api().port() + ": " + bindFailure(e));
      return;
    }
    if (config.database().url().startsWith("jdbc:h2:")) {
      LoggerFactory.getLogger(LeafServer.class)
          .warn(
              "the embedded H2 database ({}) is for trying Leaf out: IDs are safe only as long as"
                  + " its file is; a lost or recreated file starts again at max_id 1 and repeats"
                  + " IDs. Production uses --db-url jdbc:mysql:// (MySQL/MariaDB)",
              DataSources.redact(config.database().url()));
    }
    Runtime.getRuntime().addShutdownHook(ServerThreads.shutdownHook(server::stop));
    server.awaitTermination();
  }

  /**
   * A start check that could not run at start (the database was down) and then failed, on a region
   * or on a table: the server stops, then exits 2 with the reason as its last line, as it would
   * have at start. Tables found unusable after a check passed leave it up, NOT_SERVING. Runs on a
   * thread of its own: the stop waits for the checking thread.
   */
  private static void refusedLater(UnusableTableException e, AtomicReference<LeafServer> server) {
    Thread exit =
        new Thread(
            () -> {
              try {
                LeafServer s = server.get();
                if (s != null) {
                  s.stop();
                }
              } finally {
                // A stop that fails still ends in the exit code of a refused start.
                exit("leaf-server: " + e.getMessage());
              }
            },
            "leaf-exit");
    // Not a daemon (as the checking thread is): the JVM must not end with main's return before
    // this thread's exit code.
    exit.setDaemon(false);
    exit.start();
  }

  private static void exit(String reason) {
    System.err.println(reason);
    System.exit(USAGE);
  }

  /** Why the port could not be bound, in the operating system's words where it gave any. */
  static String bindFailure(IOException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = t.getMessage();
      if (m != null && m.contains("Address already in use")) {
        return "Address already in use";
      }
    }
    Throwable root = e.getCause() != null ? e.getCause() : e;
    return root.getMessage();
  }
}
