package io.leaf.bench;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.io.File;
import java.util.ArrayList;
import java.util.List;

/**
 * How the isolated-server rows start their {@link StressServer}s: which build (this one, or {@code
 * --server-classpath}), which database, which tags.
 */
final class IsolatedServers {

  static final String TAG = "bench.isolated";

  /** The other client's tag in the unread-streams row: another caller, another tag. */
  static final String OTHER_TAG = "bench.isolated.other";

  static final String STALLED_TAG = StressServer.STALLED_PREFIX + "tag";

  final BenchOptions options;

  /** The server measured, as the table names it. */
  final String build;

  private final String dbUrl;
  private final String classPath;

  /**
   * @param dbUrl a database of the isolated servers' own
   */
  IsolatedServers(BenchOptions options, String dbUrl) {
    this.options = options;
    this.dbUrl = dbUrl;
    this.classPath =
        options.targets().serverClassPath() != null
            ? options.targets().serverClassPath()
            : System.getProperty("java.class.path");
    String build =
        options.targets().serverClassPath() != null
            ? "server from " + options.targets().serverClassPath().split(File.pathSeparator)[0]
            : "this build's server";
    this.build =
        options.targets().serverFlags().isEmpty()
            ? build
            : build + " with " + String.join(" ", options.targets().serverFlags());
  }

  IsolatedServer start(List<String> jvmArgs, List<String> flags) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                dbUrl,
                options.targets().dbUser(),
                options.targets().dbPassword(),
                TAG
                    + "="
                    + options.load().latency().largeStep()
                    + ","
                    + OTHER_TAG
                    + "="
                    + options.load().latency().largeStep()
                    + ","
                    + STALLED_TAG
                    + "="
                    + options.load().latency().largeStep()));
    args.addAll(flags);
    args.addAll(options.targets().serverFlags());
    return new IsolatedServer(jvmArgs, classPath, args);
  }

  static ManagedChannel channel(int port) {
    return Grpc.newChannelBuilderForAddress("127.0.0.1", port, InsecureChannelCredentials.create())
        .directExecutor()
        .build();
  }
}
