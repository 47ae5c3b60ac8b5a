package io.leaf.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The rows run on databases of their own, each in a temporary directory removed afterwards. */
final class DirectoryRows {

  private final BenchOptions options;
  private final ResultsTable table;

  DirectoryRows(BenchOptions options, ResultsTable table) {
    this.options = options;
    this.table = table;
  }

  /** P9: the scoped-token server on a database of its own (H2: a file beside the other's). */
  void tokenRows(Path tempDir, IsolatedServers isolated) throws Exception {
    Path dir = tempDir != null ? tempDir : Files.createTempDirectory("leaf-bench-tokens");
    try {
      IsolatedServers scoped =
          new IsolatedServers(
              options,
              tempDir == null
                  ? options.targets().dbUrl()
                  : "jdbc:h2:file:" + tempDir.resolve("isolated-tokens") + ";MODE=MySQL");
      new TokenRows(isolated, scoped, table).run(dir);
    } finally {
      if (tempDir == null) {
        deleteTree(dir);
      }
    }
  }

  /** P11, on --db-url when given (MariaDB), else on an H2 file in a directory of its own. */
  void ledgerRow() throws Exception {
    if (options.targets().dbUrl() != null) {
      new LedgerRows(options, table)
          .run(
              options.targets().dbUrl(),
              options.targets().dbUser(),
              options.targets().dbPassword());
      return;
    }
    Path dir = Files.createTempDirectory("leaf-bench-ledger");
    try {
      new LedgerRows(options, table)
          .run("jdbc:h2:file:" + dir.resolve("ledger") + ";MODE=MySQL", "sa", "");
    } finally {
      deleteTree(dir);
    }
  }

  /** P12, on H2 files in a directory of its own. */
  void startupRow() throws Exception {
    Path dir = Files.createTempDirectory("leaf-bench-startup");
    try {
      new StartupRows(options, table).run(dir);
    } finally {
      deleteTree(dir);
    }
  }

  /** O1–O4, on H2 files in a directory of their own. */
  void orderingRows() throws Exception {
    Path dir = Files.createTempDirectory("leaf-bench-ordering");
    try {
      new OrderingRows(options, table).run(dir);
      new SequenceRows(options, table).run(dir);
    } finally {
      deleteTree(dir);
    }
  }

  /** P10, on two H2 files in a directory of its own (whatever --db-url says: see RegionRows). */
  void regionRow() throws Exception {
    Path dir = Files.createTempDirectory("leaf-bench-regions");
    try {
      new RegionRows(options, table).run(dir, options.lastConcurrency());
    } finally {
      deleteTree(dir);
    }
  }

  static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
