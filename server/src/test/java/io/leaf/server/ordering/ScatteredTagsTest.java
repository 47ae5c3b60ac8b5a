package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.scattered.ScatteredIds;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.InProcessFleet;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.DecodeScatteredIdRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.Ordering;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.SetOrderingRequest;
import io.leaf.v1.Tag;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * SCATTERED tags through the gRPC API of three in-process servers on one store: unique positive IDs
 * in no order, decoded back to their sequence; no switch to or from SCATTERED; ReserveIds refused;
 * a server that knew the name as PER_SERVER before CreateTag never issues it unscattered.
 */
class ScatteredTagsTest {

  private static final long TTL_MS = 300;
  private final InProcessFleet fleet = new InProcessFleet("scattered", TTL_MS);
  private final MemorySegmentStore store = fleet.store;
  private final MemoryOrderingStore orderings = fleet.orderings;

  @AfterEach
  void tearDown() {
    fleet.close();
  }

  private LeafServiceGrpc.LeafServiceBlockingStub start(int i, String... more) throws Exception {
    return fleet.start(i, more).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private static Tag createScattered(LeafServiceGrpc.LeafServiceBlockingStub s, String tag) {
    return s.createTag(
        CreateTagRequest.newBuilder()
            .setBizTag(tag)
            .setStep(100)
            .setOrdering(Ordering.SCATTERED)
            .build());
  }

  private static long nextId(LeafServiceGrpc.LeafServiceBlockingStub s, String tag) {
    return s.nextId(NextIdRequest.newBuilder().setBizTag(tag).build()).getId();
  }

  private static Status.Code refused(Executable call, String part) {
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
    String d = String.valueOf(e.getStatus().getDescription());
    assertTrue(d.contains(part), "names " + part + ": " + d);
    return e.getStatus().getCode();
  }

  @Test
  void nextIdAndBatch_threeServers_tenThousandUniquePositiveUnordered() throws Exception {
    List<LeafServiceGrpc.LeafServiceBlockingStub> stubs = List.of(start(0), start(1), start(2));
    long began = System.nanoTime();
    Tag created = createScattered(stubs.get(0), "s");
    assertEquals(Ordering.SCATTERED, created.getOrdering(), "CreateTag answers SCATTERED");
    assertTrue(
        System.nanoTime() - began >= TimeUnit.MILLISECONDS.toNanos(TTL_MS),
        "CreateTag returns after the TTL");
    Set<Long> ids = ConcurrentHashMap.newKeySet();
    List<Long> seen = new ArrayList<>();
    List<Thread> callers = new ArrayList<>();
    List<List<Long>> perCaller = new ArrayList<>();
    AtomicBoolean duplicate = new AtomicBoolean();
    for (int c = 0; c < 6; c++) {
      LeafServiceGrpc.LeafServiceBlockingStub s = stubs.get(c % 3);
      boolean batch = c % 2 == 1;
      List<Long> mine = new ArrayList<>();
      perCaller.add(mine);
      Thread t =
          new Thread(
              () -> {
                while (mine.size() < 1_700) {
                  List<Long> got = new ArrayList<>();
                  if (batch) {
                    s.nextIdBatch(
                            NextIdBatchRequest.newBuilder()
                                .setBizTag("s")
                                .setCount(50)
                                .setChunkSize(20)
                                .build())
                        .forEachRemaining(b -> got.addAll(b.getIdsList()));
                  } else {
                    got.add(nextId(s, "s"));
                  }
                  for (long id : got) {
                    if (!ids.add(id)) {
                      duplicate.set(true);
                    }
                  }
                  mine.addAll(got);
                }
              });
      t.start();
      callers.add(t);
    }
    for (Thread t : callers) {
      t.join();
    }
    perCaller.forEach(seen::addAll);
    assertTrue(seen.size() >= 10_000, "IDs taken: " + seen.size());
    assertTrue(!duplicate.get(), "no ID twice");
    assertEquals(seen.size(), ids.size(), "no ID twice in " + seen.size());
    long maxId = store.getTag("s").orElseThrow().maxId();
    long descents = 0;
    Set<Long> sequences = new HashSet<>();
    for (List<Long> mine : perCaller) {
      for (int i = 0; i < mine.size(); i++) {
        long id = mine.get(i);
        assertTrue(id > 0, "positive: " + id);
        long seq = ScatteredIds.sequence(id);
        assertTrue(seq >= 1 && seq < maxId, "a segment value: " + seq + " of " + id);
        sequences.add(seq);
        if (i > 0) {
          descents += id < mine.get(i - 1) ? 1 : 0;
          assertTrue(
              seq > ScatteredIds.sequence(mine.get(i - 1)), "one caller's sequence increases");
        }
      }
    }
    assertEquals(ids.size(), sequences.size(), "distinct sequences");
    assertTrue(
        descents > seen.size() / 4,
        "not monotonic: " + descents + " descents in " + seen.size() + " IDs");
    long one = seen.get(seen.size() / 2);
    assertEquals(
        ScatteredIds.sequence(one),
        stubs
            .get(2)
            .decodeScatteredId(
                DecodeScatteredIdRequest.newBuilder().setBizTag("s").setId(one).build())
            .getSequence(),
        "DecodeScatteredId gives the sequence back");
    assertEquals(
        Ordering.SCATTERED,
        stubs
            .get(1)
            .getTag(GetTagRequest.newBuilder().setBizTag("s").build())
            .getTag()
            .getOrdering(),
        "GetTag shows SCATTERED");
  }

  @Test
  void setOrdering_toOrFromScattered_failedPrecondition() throws Exception {
    LeafServiceGrpc.LeafServiceBlockingStub s = start(0);
    s.createTag(CreateTagRequest.newBuilder().setBizTag("plain").setStep(10).build());
    long plainFirst = nextId(s, "plain");
    assertEquals(
        Status.Code.FAILED_PRECONDITION,
        refused(
            () ->
                s.setOrdering(
                    SetOrderingRequest.newBuilder()
                        .setBizTag("plain")
                        .setOrdering(Ordering.SCATTERED)
                        .build()),
            "cannot become SCATTERED"));
    assertEquals(plainFirst + 1, nextId(s, "plain"), "still issued unscattered");
    createScattered(s, "sc");
    for (Ordering to :
        List.of(Ordering.PER_SERVER, Ordering.STRICT, Ordering.ORDERING_UNSPECIFIED)) {
      assertEquals(
          Status.Code.FAILED_PRECONDITION,
          refused(
              () ->
                  s.setOrdering(
                      SetOrderingRequest.newBuilder().setBizTag("sc").setOrdering(to).build()),
              "is SCATTERED and cannot become"),
          "to " + to);
    }
    assertEquals(
        Ordering.SCATTERED,
        s.setOrdering(
                SetOrderingRequest.newBuilder()
                    .setBizTag("sc")
                    .setOrdering(Ordering.SCATTERED)
                    .build())
            .getOrdering(),
        "SCATTERED to SCATTERED changes nothing");
    assertEquals(1, ScatteredIds.sequence(nextId(s, "sc")), "issued scattered");
    assertEquals(
        Status.Code.ALREADY_EXISTS,
        refused(() -> createScattered(s, "plain"), "exists already"),
        "an existing tag is not made SCATTERED by CreateTag");
    assertEquals(TagOrdering.PER_SERVER, orderings.read("plain").ordering(), "row untouched");
    assertEquals(plainFirst + 2, nextId(s, "plain"), "and still issued unscattered");
  }

  @Test
  void createTag_nameStoredScattered_otherOrderingsRefusedScatteredGoesOn() throws Exception {
    LeafServiceGrpc.LeafServiceBlockingStub s = start(0);
    orderings.setOrdering("left", TagOrdering.SCATTERED); // a CreateTag that failed after its row
    for (Ordering o : List.of(Ordering.PER_SERVER, Ordering.STRICT)) {
      assertEquals(
          Status.Code.FAILED_PRECONDITION,
          refused(
              () ->
                  s.createTag(
                      CreateTagRequest.newBuilder().setBizTag("left").setOrdering(o).build()),
              "stored as SCATTERED"),
          o.toString());
    }
    assertEquals(Ordering.SCATTERED, createScattered(s, "left").getOrdering());
    assertEquals(1, ScatteredIds.sequence(nextId(s, "left")));
  }

  @Test
  void nextFormattedId_scatteredTag_ownSequenceUnscattered() throws Exception {
    LeafServiceGrpc.LeafServiceBlockingStub s = start(0);
    s.createTag(
        CreateTagRequest.newBuilder()
            .setBizTag("f")
            .setOrdering(Ordering.SCATTERED)
            .setFormat(io.leaf.v1.IdFormat.newBuilder().setPattern("F-{seq:4}"))
            .build());
    assertEquals(
        "F-0001", s.nextFormattedId(NextIdRequest.newBuilder().setBizTag("f").build()).getValue());
    assertEquals(
        1, ScatteredIds.sequence(nextId(s, "f")), "NextId scattered; numbers have their own");
  }

  @Test
  void reserveIds_scatteredTag_failedPreconditionNamingTheOrdering() throws Exception {
    LeafServiceGrpc.LeafServiceBlockingStub s = start(0);
    createScattered(s, "r");
    assertEquals(
        Status.Code.FAILED_PRECONDITION,
        refused(
            () -> s.reserveIds(ReserveIdsRequest.newBuilder().setBizTag("r").setCount(5).build()),
            "SCATTERED"));
  }

  @Test
  void decodeScatteredId_wrongTagOrId_preciseStatuses() throws Exception {
    LeafServiceGrpc.LeafServiceBlockingStub s = start(0);
    s.createTag(CreateTagRequest.newBuilder().setBizTag("p").build());
    createScattered(s, "d");
    assertEquals(
        Status.Code.NOT_FOUND,
        refused(() -> decode(s, "nope", 5), "does not exist"),
        "unknown tag");
    assertEquals(
        Status.Code.FAILED_PRECONDITION,
        refused(() -> decode(s, "p", 5), "not scattered"),
        "a PER_SERVER tag");
    assertEquals(
        Status.Code.INVALID_ARGUMENT, refused(() -> decode(s, "d", 0), "positive"), "id 0");
    assertEquals(
        Status.Code.INVALID_ARGUMENT, refused(() -> decode(s, "d", -7), "positive"), "id < 0");
    assertEquals(42, decode(s, "d", ScatteredIds.scatter(42)));
  }

  private static long decode(LeafServiceGrpc.LeafServiceBlockingStub s, String tag, long id) {
    return s.decodeScatteredId(
            DecodeScatteredIdRequest.newBuilder().setBizTag(tag).setId(id).build())
        .getSequence();
  }

  @Test
  void createTag_serverKnewTheNameAsPerServer_neverIssuesItUnscattered() throws Exception {
    // a remembers no missing tag, so each call during the creation reaches its ordering's route.
    LeafServiceGrpc.LeafServiceBlockingStub a = start(0, "--missing-tag-ttl", "1ms");
    LeafServiceGrpc.LeafServiceBlockingStub b = start(1);
    assertEquals(
        Status.Code.NOT_FOUND, refused(() -> nextId(a, "early"), "early"), "not created yet");
    // a now trusts "no row" (PER_SERVER) for this name for four fifths of the TTL.
    CompletableFuture<Tag> creating =
        CompletableFuture.supplyAsync(() -> createScattered(b, "early"));
    List<Long> issued = new ArrayList<>();
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TTL_MS * 3);
    while (System.nanoTime() < until) {
      try {
        issued.add(nextId(a, "early"));
      } catch (StatusRuntimeException e) {
        assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode(), e.getStatus().toString());
      }
    }
    assertEquals(Ordering.SCATTERED, creating.get(10, TimeUnit.SECONDS).getOrdering());
    issued.add(nextId(a, "early"));
    for (long id : issued) {
      assertTrue(id > 1L << 40, "scattered, never a plain segment value: " + id);
    }
  }

  @Test
  void httpSegmentGet_scatteredTag_scatteredValue() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    LeafServiceGrpc.LeafServiceBlockingStub s = start(0, "--http-port", Integer.toString(port));
    createScattered(s, "h");
    HttpClient http = HttpClient.newHttpClient();
    List<Long> got = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/segment/get/h"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), r.body());
      got.add(Long.parseLong(r.body()));
    }
    assertEquals(
        List.of(ScatteredIds.scatter(1), ScatteredIds.scatter(2), ScatteredIds.scatter(3)), got);
  }
}
