package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.leaf.client.LeafClient;
import io.leaf.server.LeafServer;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.Ports;
import io.leaf.server.testing.TestServer;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.Ordering;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * LeafClient against a server that is not a STRICT tag's owner: after the first call names the
 * owner, its calls on the tag go to the owner directly with {@code callOwners(true)}; by default
 * every one goes through the server given, and nextSequence always does. Real TCP servers on one
 * in-memory store.
 */
class LeafClientOwnerTest {

  private final MemorySegmentStore store = new MemorySegmentStore();
  private final MemoryOrderingStore orderings = new MemoryOrderingStore(InstantSource.system());
  private final List<LeafServer> servers = new ArrayList<>();
  private final int[] ports = {Ports.free(), Ports.free()};

  /** LeafService calls the second server (never the owner) received. */
  private final AtomicInteger atOther = new AtomicInteger();

  @AfterEach
  void tearDown() {
    servers.forEach(LeafServer::stop);
  }

  private void start(int i, ServerInterceptor counting) throws Exception {
    TestServer s =
        TestServer.on(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", ports[i])))
            .store(store)
            .orderings(
                new OrderingSource(
                    orderings, OrderingSource.memorySections(orderings), Forwarder::plaintext))
            .flags("--advertise-address", "127.0.0.1:" + ports[i], "--tag-lease-ttl", "1000ms");
    if (counting != null) {
      s = s.intercept(counting);
    }
    servers.add(s.start());
  }

  private LeafClient ownerOfTagOnServer0() throws Exception {
    start(0, null);
    start(1, counting());
    LeafClient first = LeafClient.forTarget("127.0.0.1:" + ports[0]).build();
    LeafServiceGrpc.newBlockingStub(first.channel())
        .createTag(
            CreateTagRequest.newBuilder()
                .setBizTag("s")
                .setStep(100)
                .setOrdering(Ordering.STRICT)
                .build());
    Poll.retry(() -> first.nextId("s"), Duration.ofSeconds(10)); // server 0 owns it now
    return first;
  }

  @Test
  void ownerNamedOnce_laterCallsSkipTheHop() throws Exception {
    try (LeafClient first = ownerOfTagOnServer0();
        LeafClient client =
            LeafClient.forTarget("127.0.0.1:" + ports[1]).callOwners(true).build()) {
      long last = 0;
      for (int i = 0; i < 50; i++) {
        long id = client.nextId("s");
        assertTrue(id > last, id + " after " + last);
        last = id;
      }
      long[] batch = client.nextIds("s", 5);
      assertTrue(batch[0] > last, "a batch after");
      assertEquals(1, atOther.get(), "only the first call went through server 1");
    }
  }

  @Test
  void nextSequence_ownerKnown_everyCallThroughTheServerGiven() throws Exception {
    try (LeafClient first = ownerOfTagOnServer0();
        LeafClient client =
            LeafClient.forTarget("127.0.0.1:" + ports[1]).callOwners(true).build()) {
      client.nextId("s");
      client.nextId("s");
      assertEquals(1, atOther.get(), "the owner is known: the second ID call went to it");
      long last = 0;
      for (int i = 0; i < 5; i++) {
        long value = Poll.retry(() -> client.nextSequence("s", "k"), Duration.ofSeconds(10));
        assertTrue(value > last, value + " after " + last);
        last = value;
      }
      assertTrue(atOther.get() >= 6, "every sequence call through server 1: " + atOther.get());
    }
  }

  @Test
  void byDefault_everyCallThroughTheServerGiven() throws Exception {
    try (LeafClient first = ownerOfTagOnServer0();
        LeafClient client = LeafClient.forTarget("127.0.0.1:" + ports[1]).build()) {
      for (int i = 0; i < 20; i++) {
        client.nextId("s");
      }
      assertEquals(20, atOther.get());
    }
  }

  private ServerInterceptor counting() {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, io.grpc.Metadata headers, ServerCallHandler<Q, R> next) {
        if (call.getMethodDescriptor().getServiceName().equals("leaf.v1.LeafService")) {
          atOther.incrementAndGet();
        }
        return next.startCall(call, headers);
      }
    };
  }
}
