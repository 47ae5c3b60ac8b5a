package io.leaf.bench;

import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.store.TagAlreadyExistsException;
import io.leaf.server.wiring.LeafServerBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real {@link LeafServer} over Netty on the loopback interface and a free port, wired as in
 * production except that every segment load may be delayed by a {@link DelayingSegmentStore} (the
 * production server has no such switch).
 */
public final class BenchServer implements AutoCloseable {

  /** One client for every scrape: each HttpClient holds a selector thread until collected. */
  private static final HttpClient METRICS_CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final LeafServer server;
  private final ServerConfig config;
  private final Duration loadDelay;

  private BenchServer(LeafServer server, ServerConfig config, Duration loadDelay) {
    this.server = server;
    this.config = config;
    this.loadDelay = loadDelay;
  }

  /**
   * @param loadDelay added to every segment load; zero for none
   * @param maxStep the server's {@code --max-step}: the dynamic step never grows past it
   */
  public static BenchServer start(
      String dbUrl, String dbUser, String dbPassword, Duration loadDelay, int maxStep)
      throws IOException {
    return start(dbUrl, dbUser, dbPassword, loadDelay, maxStep, new String[0]);
  }

  /** As {@link #start(String, String, String, Duration, int)} with {@code flags} added. */
  public static BenchServer start(
      String dbUrl,
      String dbUser,
      String dbPassword,
      Duration loadDelay,
      int maxStep,
      String... flags)
      throws IOException {
    // Flags only: a LEAF_* variable in the caller's environment must not change what is measured.
    List<String> args =
        new ArrayList<>(
            List.of(
                "--port",
                "0",
                "--db-url",
                dbUrl,
                "--db-user",
                dbUser,
                "--db-password",
                dbPassword,
                "--max-step",
                Integer.toString(maxStep),
                "--http-port",
                Integer.toString(freePort()),
                // The loopback address the port is bound on; :0 is named by the port bound.
                "--advertise-address",
                "127.0.0.1:0"));
    args.addAll(List.of(flags));
    ServerConfig config = ServerConfig.parse(args.toArray(String[]::new), env -> null);
    LeafServer server =
        LeafServerBuilder.forConfig(config)
            .transport(
                NettyServerBuilder.forAddress(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
            .decorateStore(
                store -> loadDelay.isZero() ? store : new DelayingSegmentStore(store, loadDelay))
            .build();
    try {
      server.start();
    } catch (IOException | RuntimeException e) {
      server.stop();
      throw e;
    }
    return new BenchServer(server, config, loadDelay);
  }

  /** Creates {@code bizTag} with {@code step}, or sets the step of a tag left by an earlier run. */
  public void ensureTag(String bizTag, int step) {
    try {
      server.store().createTag(bizTag, 1, step, "benchmark");
    } catch (TagAlreadyExistsException e) {
      server.store().updateStep(bizTag, step);
    }
  }

  /** One ID of {@code bizTag} straight from this server's engine (the bench thread may wait). */
  public long nextId(String bizTag) throws Exception {
    SegmentAllocator allocator = server.allocator();
    return allocator
        .nextId(bizTag, allocator.deadline(TimeUnit.SECONDS.toNanos(5), false))
        .get(10, TimeUnit.SECONDS);
  }

  public int port() {
    return server.port();
  }

  /** The port of Meituan Leaf's HTTP endpoints ({@code --http-port}). */
  public int httpPort() {
    return server.http().httpPort();
  }

  private static int freePort() throws IOException {
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
      return probe.getLocalPort();
    }
  }

  /**
   * The server's counter {@code name} (a Prometheus sample without labels) from its {@code
   * /metrics}, e.g. {@code leaf_segment_waits_total}.
   */
  public long counter(String name) throws IOException, InterruptedException {
    HttpResponse<String> response =
        METRICS_CLIENT.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort() + "/metrics"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    for (String line : response.body().split("\n")) {
      if (line.startsWith(name + " ")) {
        return (long) Double.parseDouble(line.substring(name.length() + 1).trim());
      }
    }
    throw new IOException(
        "no " + name + " in the server's /metrics (HTTP " + response.statusCode() + ")");
  }

  /** The settings that matter to a reader of the results. */
  public String describe() {
    return "LeafServer over Netty on 127.0.0.1, db-pool-size "
        + config.segments().engine().loaders().threads()
        + ", max-step "
        + config.segments().engine().maxStep()
        + (loadDelay.isZero() ? "" : ", +" + loadDelay.toMillis() + " ms per segment load");
  }

  @Override
  public void close() {
    server.stop();
  }
}
