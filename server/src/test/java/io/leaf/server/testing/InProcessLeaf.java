package io.leaf.server.testing;

import com.google.common.base.Ticker;
import io.grpc.ManagedChannel;
import io.grpc.ServerInterceptor;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.store.SegmentStore;
import io.leaf.v1.LeafServiceGrpc;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** A LeafServer on the in-process transport with a channel to it; close() tears both down. */
public final class InProcessLeaf implements AutoCloseable {

  public final LeafServer server;
  public final SegmentAllocator allocator;
  public final ManagedChannel channel;
  public final LeafServiceGrpc.LeafServiceBlockingStub blocking;
  public final LeafServiceGrpc.LeafServiceStub async;

  public InProcessLeaf(SegmentStore store, String... flags) throws Exception {
    this(
        store,
        Ticker.systemTicker(),
        EngineConfig.DEFAULTS.withBackoff(Duration.ofMillis(20), Duration.ofMillis(200)),
        flags);
  }

  public InProcessLeaf(SegmentStore store, Ticker ticker, EngineConfig engine, String... flags)
      throws Exception {
    this(store, ticker, engine, List.of(), flags);
  }

  /** A server whose calls also pass through {@code interceptors} (to watch what it sees). */
  public InProcessLeaf(
      SegmentStore store,
      Ticker ticker,
      EngineConfig engine,
      List<ServerInterceptor> interceptors,
      String... flags)
      throws Exception {
    this(store, ticker, engine, builder -> interceptors.forEach(builder::intercept), flags);
  }

  /** A server {@code setup} adds to (interceptors, the engine's events, metrics) before start. */
  public InProcessLeaf(
      SegmentStore store,
      Ticker ticker,
      EngineConfig engine,
      Consumer<TestServer> setup,
      String... flags)
      throws Exception {
    String name = InProcessServerBuilder.generateName();
    TestServer builder =
        TestServer.inProcess(name).flags(flags).store(store).ticker(ticker).engine(engine);
    setup.accept(builder);
    server = builder.start();
    allocator = server.allocator();
    channel = InProcessChannelBuilder.forName(name).build();
    blocking = LeafServiceGrpc.newBlockingStub(channel);
    async = LeafServiceGrpc.newStub(channel);
  }

  @Override
  public void close() throws Exception {
    channel.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
    server.stop();
  }
}
