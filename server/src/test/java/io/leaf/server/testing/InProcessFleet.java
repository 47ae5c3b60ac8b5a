package io.leaf.server.testing;

import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.ordering.MemoryOrderingStore;
import io.leaf.server.ordering.OrderingSource;
import io.leaf.server.ordering.OrderingStore;
import io.leaf.server.sequence.SectionStore;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.v1.LeafServiceGrpc;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/**
 * In-process servers on one memory store and one ordering table, forwarding to each other by their
 * advertised names; {@link #close()} stops them all.
 */
public final class InProcessFleet implements AutoCloseable {

  public final MemorySegmentStore store = new MemorySegmentStore();
  public final MemoryOrderingStore orderings = new MemoryOrderingStore(InstantSource.system());
  public final SectionStore sections = OrderingSource.memorySections(orderings);

  /** Every server's name starts with this; its index follows. */
  public final String prefix;

  private final long tagLeaseTtlMs;
  private final List<LeafServer> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  /**
   * @param name a word the servers' names start with
   * @param tagLeaseTtlMs every server's {@code --tag-lease-ttl}
   */
  public InProcessFleet(String name, long tagLeaseTtlMs) {
    this.prefix = name + "-" + System.nanoTime() + "-";
    this.tagLeaseTtlMs = tagLeaseTtlMs;
  }

  /** Starts server {@code i} (advertised as {@code prefix + i + ":1"}) with {@code more} flags. */
  public LeafServiceGrpc.LeafServiceBlockingStub start(int i, String... more) throws Exception {
    return start(i, orderings, more);
  }

  /** As {@link #start(int, String...)}, reading the shared ordering table through {@code view}. */
  public LeafServiceGrpc.LeafServiceBlockingStub start(int i, OrderingStore view, String... more)
      throws Exception {
    String name = prefix + i;
    List<String> flags =
        new ArrayList<>(
            List.of("--advertise-address", name + ":1", "--tag-lease-ttl", tagLeaseTtlMs + "ms"));
    flags.addAll(List.of(more));
    servers.add(
        TestServer.inProcess(name)
            .store(store)
            .orderings(new OrderingSource(view, sections, InProcessFleet::connect))
            .flags(flags.toArray(String[]::new))
            .start());
    ManagedChannel ch = InProcessChannelBuilder.forName(name).build();
    channels.add(ch);
    return LeafServiceGrpc.newBlockingStub(ch);
  }

  /** The server started {@code i}-th. */
  public LeafServer server(int i) {
    return servers.get(i);
  }

  /** The index of the server an owner string ({@code prefix + i + ":1"}) names. */
  public int indexOf(String owner) {
    return Integer.parseInt(owner.substring(prefix.length(), owner.indexOf(':')));
  }

  @Override
  public void close() {
    channels.forEach(ManagedChannel::shutdownNow);
    servers.forEach(LeafServer::stop);
  }

  private static ManagedChannel connect(String address) {
    return InProcessChannelBuilder.forName(address.substring(0, address.lastIndexOf(':'))).build();
  }
}
