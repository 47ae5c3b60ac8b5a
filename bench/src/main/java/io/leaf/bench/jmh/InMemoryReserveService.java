package io.leaf.bench.jmh;

import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.leaf.client.LeafClient;
import io.leaf.v1.IdRange;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.ReservedIds;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A ReserveIds service in memory, reached over gRPC's in-process transport: each reservation is one
 * range cut from a counter, so a {@link io.leaf.client.CachedIdGenerator} on it measures its own
 * cache, not a network or a database.
 */
public final class InMemoryReserveService extends LeafServiceGrpc.LeafServiceImplBase
    implements AutoCloseable {

  private final AtomicLong next = new AtomicLong(1);
  private final Server server;
  private final LeafClient client;

  public InMemoryReserveService() throws IOException {
    String name = "leaf-bench-reserve-" + System.nanoTime();
    server = InProcessServerBuilder.forName(name).directExecutor().addService(this).build().start();
    client =
        LeafClient.forChannelBuilder(InProcessChannelBuilder.forName(name).directExecutor())
            .build();
  }

  /** A client whose ReserveIds this service answers. */
  public LeafClient client() {
    return client;
  }

  @Override
  public void reserveIds(ReserveIdsRequest req, StreamObserver<ReservedIds> out) {
    long start = next.getAndAdd(req.getCount());
    out.onNext(
        ReservedIds.newBuilder()
            .addRanges(IdRange.newBuilder().setStart(start).setEnd(start + req.getCount()))
            .build());
    out.onCompleted();
  }

  @Override
  public void close() throws InterruptedException {
    client.close();
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
