package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.leaf.server.sequence.Sequences;
import io.leaf.server.testing.InProcessFleet;
import io.leaf.server.testing.KeyedOrderChecker;
import io.leaf.server.testing.Pace;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextSequenceRequest;
import io.leaf.v1.Ordering;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * NextSequence through three in-process servers on one store: the tag's groups owned by several
 * servers, calls forwarded to each key's owner, an owner stopped half way, the refusals of the
 * contract, and the HTTP route.
 */
class ThreeServersSequenceTest {

  private static final long TTL_MS = 1000;
  private final InProcessFleet fleet = new InProcessFleet("seq", TTL_MS);
  private final String prefix = fleet.prefix;

  @AfterEach
  void tearDown() {
    fleet.close();
  }

  private LeafServiceGrpc.LeafServiceBlockingStub start(int i, String... more) throws Exception {
    return fleet.start(i, more);
  }

  private static NextSequenceRequest req(String tag, String key) {
    return NextSequenceRequest.newBuilder().setBizTag(tag).setKey(key).build();
  }

  @Test
  void nextSequence_ownerStopped_noPerKeyViolationsNoRepeats() throws Exception {
    List<LeafServiceGrpc.LeafServiceBlockingStub> stubs = List.of(start(0), start(1), start(2));
    stubs
        .get(0)
        .createTag(
            CreateTagRequest.newBuilder().setBizTag("q").setOrdering(Ordering.STRICT).build());
    KeyedOrderChecker checker = new KeyedOrderChecker();
    AtomicBoolean done = new AtomicBoolean();
    List<Thread> callers = new ArrayList<>();
    for (int c = 0; c < 6; c++) {
      LeafServiceGrpc.LeafServiceBlockingStub stub = stubs.get(c % 3);
      Thread t =
          new Thread(
              () -> {
                while (!done.get()) {
                  String key = "user-" + ThreadLocalRandom.current().nextInt(200);
                  long sent = System.nanoTime();
                  try {
                    long v =
                        stub.withDeadlineAfter(2, TimeUnit.SECONDS)
                            .nextSequence(req("q", key))
                            .getValue();
                    checker.record(key, sent, System.nanoTime(), v);
                  } catch (StatusRuntimeException e) {
                    if (!Pace.backOffUnlessInterrupted()) {
                      return;
                    }
                  }
                }
              });
      t.start();
      callers.add(t);
    }
    Pace.holdMillis(1500); // the load runs before an owner goes away
    Map<String, Integer> owners = groupOwners("q");
    assertTrue(owners.size() >= 2, "the tag's groups spread over the servers: " + owners);
    String owner = owners.keySet().iterator().next();
    fleet.server(fleet.indexOf(owner)).stop();
    Pace.holdMillis(3000); // the next owners take its groups over and serve
    done.set(true);
    for (Thread t : callers) {
      t.join();
    }
    assertTrue(checker.calls() > 200, "calls made: " + checker.calls());
    assertEquals(0, checker.repeats(), "no value of a key twice");
    assertEquals(
        0,
        checker.violations(),
        "real-time order per key over " + checker.calls() + " calls, " + checker.keys() + " keys");
  }

  /** How many of {@code tag}'s sequence groups each server holds, by the shared lease rows. */
  private Map<String, Integer> groupOwners(String tag) {
    Map<String, Integer> owners = new TreeMap<>();
    for (int g = 0; g < Sequences.GROUPS; g++) {
      LeaseRow r = fleet.orderings.read(Sequences.leaseKey(tag, g));
      if (r.remainingMs() > 0) {
        owners.merge(r.owner(), 1, Integer::sum);
      }
    }
    return owners;
  }

  @Test
  void nextSequence_refusals_tellTheContract() throws Exception {
    LeafServiceGrpc.LeafServiceBlockingStub s = start(0);
    s.createTag(CreateTagRequest.newBuilder().setBizTag("plain").build());
    s.createTag(CreateTagRequest.newBuilder().setBizTag("st").setOrdering(Ordering.STRICT).build());
    assertEquals(Status.Code.NOT_FOUND, code(() -> s.nextSequence(req("nope", "k"))), "unknown");
    assertEquals(
        Status.Code.FAILED_PRECONDITION,
        code(() -> s.nextSequence(req("plain", "k"))),
        "a PER_SERVER tag");
    assertEquals(
        Status.Code.INVALID_ARGUMENT, code(() -> s.nextSequence(req("st", ""))), "empty key");
    assertEquals(
        Status.Code.INVALID_ARGUMENT,
        code(() -> s.nextSequence(req("st", "x".repeat(129)))),
        "129 bytes");
  }

  @Test
  void http_throughEveryServer_eachKeyIncreases() throws Exception {
    int[] ports = new int[3];
    List<LeafServiceGrpc.LeafServiceBlockingStub> stubs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      try (java.net.ServerSocket sock = new java.net.ServerSocket(0)) {
        ports[i] = sock.getLocalPort();
      }
      stubs.add(start(i, "--http-port", Integer.toString(ports[i])));
    }
    stubs
        .get(0)
        .createTag(
            CreateTagRequest.newBuilder().setBizTag("h").setOrdering(Ordering.STRICT).build());
    HttpClient http = HttpClient.newHttpClient();
    long[] last = new long[2];
    int served = 0;
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (served < 30 && System.nanoTime() < until) {
      int key = served % 2;
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://127.0.0.1:"
                              + ports[served % 3]
                              + "/api/sequence/get/h/chat%20"
                              + key))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        assertEquals(503, r.statusCode(), "only the wait-out refuses: " + r.body());
        Pace.backOff();
        continue;
      }
      long v = Long.parseLong(r.body());
      assertTrue(v > last[key], "key " + key + ": " + v + " after " + last[key]);
      last[key] = v;
      served++;
    }
    assertEquals(30, served, "every call served over the three servers");
    HttpResponse<String> plain =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + ports[0] + "/api/sequence/get/none/k"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(404, plain.statusCode(), "an unknown tag: " + plain.body());
  }

  @Test
  void leafClient_nextSequence_increasesPerKey() throws Exception {
    LeafServiceGrpc.LeafServiceBlockingStub s = start(0);
    s.createTag(CreateTagRequest.newBuilder().setBizTag("c").setOrdering(Ordering.STRICT).build());
    s.createTag(CreateTagRequest.newBuilder().setBizTag("p").build());
    try (io.leaf.client.LeafClient client =
        io.leaf.client.LeafClient.forChannelBuilder(InProcessChannelBuilder.forName(prefix + 0))
            .build()) {
      long first = 0;
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (first == 0) {
        try {
          first = client.nextSequence("c", "会话-1");
        } catch (io.leaf.client.LeafUnavailableException e) {
          assertTrue(System.nanoTime() < until, "served after the owner's wait-out: " + e);
          Pace.backOff();
        }
      }
      assertEquals(1, first, "a new key starts at 1");
      assertEquals(2, client.nextSequence("c", "会话-1"), "the key's next value");
      assertEquals(1, client.nextSequence("c", "another"), "another key from 1");
      assertThrows(
          io.leaf.client.FailedPreconditionException.class,
          () -> client.nextSequence("p", "k"),
          "a PER_SERVER tag, typed like the other calls");
    }
  }

  private static Status.Code code(Runnable call) {
    return assertThrows(StatusRuntimeException.class, call::run).getStatus().getCode();
  }
}
