package io.leaf.bench;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** The results file of one run: a header telling how it ran, then the table; JSON beside it. */
final class ResultsFile {

  private final BenchOptions options;
  private final ResultsTable table;
  private final Instant started;
  private final Environment env;

  ResultsFile(BenchOptions options, ResultsTable table, Instant started, Environment env) {
    this.options = options;
    this.table = table;
    this.started = started;
    this.env = env;
  }

  /** The full run's file. */
  String full(String serverDescription) throws IOException {
    Duration wall = Duration.between(started, Instant.now());
    String text =
        "# Leaf benchmark results\n\n"
            + "- Run: "
            + started.truncatedTo(ChronoUnit.SECONDS)
            + ", wall time "
            + wall.toSeconds() / 60
            + " min "
            + wall.toSeconds() % 60
            + " s"
            + (options.quick() ? ", **--quick: tiny durations, the numbers mean nothing**" : "")
            + "\n"
            + "- Machine: "
            + env.describe()
            + "\n"
            + "- Servers (in the bench JVM): "
            + serverDescription
            + "; database "
            + (options.targets().dbUrl() == null
                ? "embedded H2 in a temp dir"
                : options.targets().dbUrl())
            + "\n"
            + "- Client: a separate JVM (same java, default flags), one Netty channel over"
            + " loopback\n"
            + "- Each figure is the median of "
            + options.rounds().count()
            + " rounds; P1–P3 ratios are the"
            + " median of per-round ratios, P4 ratios the ratio of medians\n\n"
            + table.markdown();
    return write(text);
  }

  /** The file of a run of the parts named by {@code --only}. */
  String only(String serverDescription, String dbUrl) throws IOException {
    String text =
        "# Leaf benchmark results ("
            + String.join(", ", options.rows().only())
            + " only)\n\n"
            + "- Run: "
            + started.truncatedTo(ChronoUnit.SECONDS)
            + "\n"
            + "- Machine: "
            + env.describe()
            + "\n"
            + "- "
            + serverDescription
            + "database "
            + (options.targets().dbUrl() == null ? "embedded H2 in a temp dir" : dbUrl)
            + "\n"
            + "- Each figure is the median of "
            + options.rounds().count()
            + " rounds\n\n"
            + table.markdown();
    return write(text);
  }

  /** The file of a run of the ID-range rows only. */
  String ranges(String serverDescription, String dbUrl) throws IOException {
    String text =
        "# Leaf benchmark results (ID-range rows only)\n\n"
            + "- Run: "
            + started.truncatedTo(ChronoUnit.SECONDS)
            + "\n"
            + "- Machine: "
            + env.describe()
            + "\n"
            + "- Server (in the bench JVM): "
            + serverDescription
            + "; database "
            + (options.targets().dbUrl() == null ? "embedded H2 in a temp dir" : dbUrl)
            + "\n"
            + "- Each figure is the median of "
            + options.rounds().count()
            + " rounds\n\n"
            + table.markdown();
    return write(text);
  }

  /** The file of a run of the isolated-server rows only. */
  String isolated(String dbUrl) throws IOException {
    String text =
        "# Leaf benchmark results (isolated-server rows only)\n\n"
            + "- Run: "
            + started.truncatedTo(ChronoUnit.SECONDS)
            + "\n"
            + "- Machine: "
            + env.describe()
            + "\n"
            + "- Server: "
            + (options.targets().serverClassPath() == null
                ? "this build"
                : options.targets().serverClassPath().split(File.pathSeparator)[0])
            + "; database "
            + (options.targets().dbUrl() == null ? "embedded H2 in a temp dir" : dbUrl)
            + "\n"
            + "- Each figure is the median of "
            + options.rounds().count()
            + " rounds\n\n"
            + table.markdown();
    return write(text);
  }

  /** Prints the results and writes them to {@code --out}; returns them. */
  private String write(String text) throws IOException {
    Path out = options.out().toAbsolutePath();
    Files.createDirectories(out.getParent());
    Files.writeString(out, text);
    Path json = out.resolveSibling("results.json");
    Files.writeString(json, table.json());
    System.out.println();
    System.out.println(text);
    Progress.say("written to %s and %s", out, json);
    return text;
  }
}
