package io.leaf.bench;

import com.google.common.base.Ticker;
import com.zaxxer.hikari.HikariDataSource;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.ServerConfig;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.TagAlreadyExistsException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.TimeUnit;

/**
 * The real {@link LeafServer} over Netty on the loopback interface and a free port, wired as in
 * production except that every segment load may be delayed by a {@link DelayingSegmentStore}
 * (the production server has no such switch).
 */
public final class BenchServer implements AutoCloseable {

  private final LeafServer server;
  private final JooqSegmentStore store;
  private final ServerConfig config;
  private final Duration loadDelay;

  private BenchServer(LeafServer server, JooqSegmentStore store, ServerConfig config,
      Duration loadDelay) {
    this.server = server;
    this.store = store;
    this.config = config;
    this.loadDelay = loadDelay;
  }

  /**
   * @param loadDelay added to every segment load; zero for none
   * @param maxStep the server's {@code --max-step}: the dynamic step never grows past it
   */
  public static BenchServer start(String dbUrl, String dbUser, String dbPassword,
      Duration loadDelay, int maxStep) throws IOException {
    // Flags only: a LEAF_* variable in the caller's environment must not change what is measured.
    ServerConfig config = ServerConfig.parse(new String[] {"--port", "0", "--db-url", dbUrl,
        "--db-user", dbUser, "--db-password", dbPassword, "--max-step", Integer.toString(maxStep)},
        env -> null);
    HikariDataSource pool = DataSources.create(config.dbUrl(), config.dbUser(),
        config.dbPassword(), config.dbPoolSize());
    JooqSegmentStore store = new JooqSegmentStore(pool, DataSources.dialectOf(config.dbUrl()),
        InstantSource.system());
    SegmentStore served = loadDelay.isZero() ? store : new DelayingSegmentStore(store, loadDelay);
    SegmentAllocator allocator = new SegmentAllocator(served, Ticker.systemTicker(),
        EngineConfig.DEFAULTS.withMaxStep(config.maxStep()).withLoaderThreads(config.dbPoolSize()));
    LeafServer server = new LeafServer(
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)),
        served, store::createSchemaIfMissing, allocator, config, pool);
    try {
      server.start();
    } catch (IOException | RuntimeException e) {
      server.stop();
      throw e;
    }
    return new BenchServer(server, store, config, loadDelay);
  }

  /** Creates {@code bizTag} with {@code step}, or sets the step of a tag left by an earlier run. */
  public void ensureTag(String bizTag, int step) {
    try {
      store.createTag(bizTag, 1, step, "benchmark");
    } catch (TagAlreadyExistsException e) {
      store.updateStep(bizTag, step);
    }
  }

  /** One ID of {@code bizTag} straight from this server's engine. */
  public long nextId(String bizTag) {
    return server.allocator().nextId(bizTag, TimeUnit.SECONDS.toNanos(5));
  }

  public int port() {
    return server.port();
  }

  /** The settings that matter to a reader of the results. */
  public String describe() {
    return "LeafServer over Netty on 127.0.0.1, db-pool-size " + config.dbPoolSize() + ", max-step "
        + config.maxStep() + (loadDelay.isZero() ? "" : ", +" + loadDelay.toMillis()
        + " ms per segment load");
  }

  @Override
  public void close() {
    server.stop();
  }
}
