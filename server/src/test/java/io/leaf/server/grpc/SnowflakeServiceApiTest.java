package io.leaf.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import io.leaf.client.BearerToken;
import io.leaf.server.LeafServer;
import io.leaf.server.security.TokenAuthInterceptor;
import io.leaf.server.snowflake.MemoryWorkerLeaseStore;
import io.leaf.server.snowflake.SnowflakeLayout;
import io.leaf.server.snowflake.WorkerLease;
import io.leaf.server.snowflake.WorkerLeaseStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.TestServer;
import io.leaf.v1.DecodeSnowflakeIdRequest;
import io.leaf.v1.GetWorkerRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextSnowflakeIdBatchRequest;
import io.leaf.v1.NextSnowflakeIdRequest;
import io.leaf.v1.SnowflakeIdParts;
import io.leaf.v1.SnowflakeServiceGrpc;
import io.leaf.v1.WorkerStatus;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

// Each case mostly waits for its server's worker lease: the class runs beside the others.
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("SnowflakeServiceApiTest")
class SnowflakeServiceApiTest {

  private final List<AutoCloseable> open = new ArrayList<>();

  /** A server on {@code leases} with {@code flags}; its channel's blocking stub. */
  private SnowflakeServiceGrpc.SnowflakeServiceBlockingStub start(
      WorkerLeaseStore leases, TokenAuthInterceptor auth, String... flags) throws Exception {
    String name = InProcessServerBuilder.generateName();
    // A short TTL: a claimed worker ID issues after the TTL plus 1 s.
    List<String> all = new ArrayList<>(List.of("--worker-lease-ttl", "1s"));
    all.addAll(List.of(flags));
    TestServer builder =
        TestServer.inProcess(name).flags(all.toArray(String[]::new)).leases(leases);
    if (auth != null) {
      builder.intercept(auth);
    }
    LeafServer server = builder.start();
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    open.add(
        () -> {
          channel.shutdownNow();
          server.stop();
        });
    channelOf = channel;
    return SnowflakeServiceGrpc.newBlockingStub(channel);
  }

  private ManagedChannel channelOf;

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  /** Waits (bounded) until the server holds a lease. */
  private static WorkerStatus leased(SnowflakeServiceGrpc.SnowflakeServiceBlockingStub stub)
      throws InterruptedException {
    return Poll.value(
            () ->
                Optional.of(stub.getWorker(GetWorkerRequest.getDefaultInstance()))
                    .filter(w -> w.getWorkerId() >= 0),
            Duration.ofSeconds(10))
        .orElseThrow(() -> new AssertionError("no lease within 10 s"));
  }

  /** {@code leases}, counting in {@code claims} the claims that reached it. */
  private static WorkerLeaseStore countingClaims(WorkerLeaseStore leases, AtomicInteger claims) {
    return new WorkerLeaseStore() {
      @Override
      public void createSchemaIfMissing() {
        leases.createSchemaIfMissing();
      }

      @Override
      public Optional<WorkerLease> claim(int fromId, int toId, String owner, Duration ttl) {
        claims.incrementAndGet();
        return leases.claim(fromId, toId, owner, ttl);
      }

      @Override
      public Optional<WorkerLease> renew(
          int workerId, String owner, Duration ttl, long lastTimestampMs, long storedAtLeastMs) {
        return leases.renew(workerId, owner, ttl, lastTimestampMs, storedAtLeastMs);
      }

      @Override
      public void release(int workerId, String owner, long lastTimestampMs) {
        leases.release(workerId, owner, lastTimestampMs);
      }
    };
  }

  @Test
  void nextSnowflakeId_leased_positiveIdOfThisWorkerThatDecodes() throws Exception {
    var stub =
        start(
            new MemoryWorkerLeaseStore(InstantSource.system()), null, "--worker-id-range", "17-17");
    WorkerStatus worker = leased(stub);
    assertEquals(17, worker.getWorkerId(), "the only ID in the range");
    assertEquals(SnowflakeLayout.MEITUAN_EPOCH_MS, worker.getEpochMs(), "default epoch");
    assertEquals(41, worker.getTimestampBits(), "bits");
    assertEquals(2080, worker.getEndYear(), "end year");
    long id = stub.nextSnowflakeId(NextSnowflakeIdRequest.getDefaultInstance()).getId();
    assertTrue(id > 0, "positive: " + id);
    SnowflakeIdParts parts =
        stub.decodeSnowflakeId(DecodeSnowflakeIdRequest.newBuilder().setId(id).build());
    assertEquals(17, parts.getWorkerId(), "worker");
    assertTrue(
        Math.abs(parts.getTimestampMs() - System.currentTimeMillis()) < 60_000,
        "time of issue: " + parts.getTimestampMs());
    assertEquals(id, parts.getId(), "id echoed");
    assertEquals(
        1, stub.getWorker(GetWorkerRequest.getDefaultInstance()).getIdsIssued(), "one ID issued");
  }

  @Test
  void snowflakeBits53_unaryAndBatch_everyIdExactInJavaScript() throws Exception {
    var stub =
        start(
            new MemoryWorkerLeaseStore(InstantSource.system()),
            null,
            "--snowflake-bits",
            "41/5/7",
            "--worker-id-range",
            "31-31");
    assertEquals(31, leased(stub).getWorkerId(), "the highest of 5 worker ID bits");
    long max = 1L << 53; // Number.MAX_SAFE_INTEGER + 1
    Set<Long> seen = new HashSet<>();
    long last = 0;
    for (int i = 0; i < 2_000; i++) {
      long id = stub.nextSnowflakeId(NextSnowflakeIdRequest.getDefaultInstance()).getId();
      assertTrue(id > last && id < max, "increasing and below 2^53: " + id);
      assertTrue(seen.add(id), "unique");
      last = id;
    }
    var batches =
        stub.nextSnowflakeIdBatch(
            NextSnowflakeIdBatchRequest.newBuilder().setCount(20_000).build());
    while (batches.hasNext()) {
      for (long id : batches.next().getIdsList()) {
        assertTrue(id > last && id < max, "increasing and below 2^53: " + id);
        assertTrue(seen.add(id), "unique");
        last = id;
      }
    }
    assertEquals(22_000, seen.size(), "every ID counted");
    SnowflakeIdParts parts =
        stub.decodeSnowflakeId(DecodeSnowflakeIdRequest.newBuilder().setId(last).build());
    assertEquals(31, parts.getWorkerId(), "decodes to this worker");
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () -> stub.decodeSnowflakeId(DecodeSnowflakeIdRequest.newBuilder().setId(max).build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), "not of a 53-bit layout");
  }

  @Test
  void decodeSnowflakeId_negative_invalidArgument() throws Exception {
    var stub = start(new MemoryWorkerLeaseStore(InstantSource.system()), null);
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () -> stub.decodeSnowflakeId(DecodeSnowflakeIdRequest.newBuilder().setId(-5).build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), "negative ID");
    assertTrue(e.getStatus().getDescription().contains("-5"), e.getStatus().getDescription());
  }

  @Test
  void nextSnowflakeIdBatch_countInChunks_increasingAndUnique() throws Exception {
    var stub = start(new MemoryWorkerLeaseStore(InstantSource.system()), null);
    leased(stub);
    Iterator<IdBatch> batches =
        stub.nextSnowflakeIdBatch(
            NextSnowflakeIdBatchRequest.newBuilder().setCount(100_000).setChunkSize(7_000).build());
    long last = 0;
    int total = 0;
    while (batches.hasNext()) {
      IdBatch b = batches.next();
      assertTrue(b.getIdsCount() <= 7_000, "chunk size respected: " + b.getIdsCount());
      for (long id : b.getIdsList()) {
        assertTrue(id > last, "increasing: " + id + " after " + last);
        last = id;
        total++;
      }
    }
    assertEquals(100_000, total, "count IDs");
    assertEquals(
        100_000,
        stub.getWorker(GetWorkerRequest.getDefaultInstance()).getIdsIssued(),
        "every streamed ID counted once");
  }

  @Test
  void nextSnowflakeIdBatch_badCountOrChunk_invalidArgumentNamingLimit() throws Exception {
    var stub =
        start(new MemoryWorkerLeaseStore(InstantSource.system()), null, "--max-batch", "1000");
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                stub.nextSnowflakeIdBatch(
                        NextSnowflakeIdBatchRequest.newBuilder().setCount(1001).build())
                    .hasNext());
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), "count above limit");
    assertTrue(
        e.getStatus().getDescription().contains("--max-batch"), e.getStatus().getDescription());
    e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                stub.nextSnowflakeIdBatch(
                        NextSnowflakeIdBatchRequest.newBuilder()
                            .setCount(10)
                            .setChunkSize(-1)
                            .build())
                    .hasNext());
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), "chunk_size");
  }

  @Test
  void nextSnowflakeId_noFreeWorkerId_resourceExhaustedNamingRange() throws Exception {
    MemoryWorkerLeaseStore leases = new MemoryWorkerLeaseStore(InstantSource.system());
    leases.claim(3, 4, "other-1", Duration.ofHours(1));
    leases.claim(3, 4, "other-2", Duration.ofHours(1));
    var stub = start(leases, null, "--worker-id-range", "3-4");
    StatusRuntimeException e =
        Poll.value(
                () -> {
                  try {
                    stub.nextSnowflakeId(NextSnowflakeIdRequest.getDefaultInstance());
                    return Optional.<StatusRuntimeException>empty();
                  } catch (StatusRuntimeException refused) {
                    return Optional.of(refused)
                        .filter(r -> r.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED);
                  }
                },
                Duration.ofSeconds(5))
            .orElse(null);
    assertTrue(e != null, "RESOURCE_EXHAUSTED once the claim found nothing free");
    assertTrue(
        e.getStatus().getDescription().contains("--worker-id-range"),
        e.getStatus().getDescription());
    assertEquals(
        -1, stub.getWorker(GetWorkerRequest.getDefaultInstance()).getWorkerId(), "no worker");
  }

  @Test
  void nextSnowflakeId_leaseTableDown_unavailableNamingLease() throws Exception {
    MemoryWorkerLeaseStore leases = new MemoryWorkerLeaseStore(InstantSource.system());
    leases.failWith(new StoreUnavailableException("database unavailable: test", null));
    var stub = start(leases, null);
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () -> stub.nextSnowflakeId(NextSnowflakeIdRequest.getDefaultInstance()));
    assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), "no lease");
    assertTrue(e.getStatus().getDescription().contains("lease"), e.getStatus().getDescription());
  }

  private ServingStatus health(String service) {
    return HealthGrpc.newBlockingStub(channelOf)
        .withDeadlineAfter(5, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService(service).build())
        .getStatus();
  }

  @Test
  void health_snowflakeService_servingOnceLeasedNotBefore() throws Exception {
    MemoryWorkerLeaseStore leases = new MemoryWorkerLeaseStore(InstantSource.system());
    leases.failWith(new StoreUnavailableException("database unavailable: test", null));
    AtomicInteger claims = new AtomicInteger();
    // TTL 2 s: a failed claim is retried after 200 ms.
    var stub = start(countingClaims(leases, claims), null, "--worker-lease-ttl", "2s");
    assertTrue(
        Poll.until(() -> claims.get() >= 2, Duration.ofSeconds(10)),
        "the first claim and a retry fail");
    assertEquals(
        ServingStatus.SERVING, health(LeafServiceGrpc.SERVICE_NAME), "segment IDs can be issued");
    assertEquals(
        ServingStatus.NOT_SERVING,
        health(SnowflakeServiceGrpc.SERVICE_NAME),
        "no worker lease: no snowflake IDs");
    leases.failWith(null);
    leased(stub);
    Poll.until(
        () -> health(SnowflakeServiceGrpc.SERVICE_NAME) == ServingStatus.SERVING,
        Duration.ofSeconds(3));
    assertEquals(
        ServingStatus.SERVING,
        health(SnowflakeServiceGrpc.SERVICE_NAME),
        "reported by the snowflake side soon after the claim");
  }

  @Test
  void snowflakeRpcs_clientTokenSet_needToken() throws Exception {
    var stub =
        start(
            new MemoryWorkerLeaseStore(InstantSource.system()),
            new TokenAuthInterceptor("admin-secret", "client-secret"));
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () -> stub.getWorker(GetWorkerRequest.getDefaultInstance()));
    assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode(), "no token");
    leased(stub.withCallCredentials(new BearerToken("client-secret")));
  }

  @Test
  void reflection_listsSnowflakeService() throws Exception {
    start(new MemoryWorkerLeaseStore(InstantSource.system()), null);
    CompletableFuture<List<String>> names = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> req =
        ServerReflectionGrpc.newStub(channelOf)
            .serverReflectionInfo(
                new StreamObserver<>() {
                  @Override
                  public void onNext(ServerReflectionResponse r) {
                    names.complete(
                        r.getListServicesResponse().getServiceList().stream()
                            .map(ServiceResponse::getName)
                            .toList());
                  }

                  @Override
                  public void onError(Throwable t) {
                    names.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {}
                });
    req.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
    List<String> services = names.get(10, TimeUnit.SECONDS);
    req.onCompleted();
    assertTrue(services.contains("leaf.v1.SnowflakeService"), services.toString());
  }

  @Test
  void concurrentUnaryAndBatches_countDuplicates_none() throws Exception {
    var stub = start(new MemoryWorkerLeaseStore(InstantSource.system()), null);
    leased(stub);
    ExecutorService pool = Executors.newFixedThreadPool(10);
    List<Future<long[]>> parts = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      parts.add(
          pool.submit(
              () -> {
                long[] ids = new long[3_000];
                for (int i = 0; i < ids.length; i++) {
                  ids[i] =
                      stub.nextSnowflakeId(NextSnowflakeIdRequest.getDefaultInstance()).getId();
                }
                return ids;
              }));
    }
    for (int t = 0; t < 2; t++) {
      parts.add(
          pool.submit(
              () -> {
                List<Long> ids = new ArrayList<>();
                stub.nextSnowflakeIdBatch(
                        NextSnowflakeIdBatchRequest.newBuilder().setCount(300_000).build())
                    .forEachRemaining(b -> ids.addAll(b.getIdsList()));
                return ids.stream().mapToLong(Long::longValue).toArray();
              }));
    }
    long total = 0;
    java.util.Set<Long> seen = new java.util.HashSet<>();
    long duplicates = 0;
    for (Future<long[]> f : parts) {
      for (long id : f.get(120, TimeUnit.SECONDS)) {
        total++;
        if (!seen.add(id)) {
          duplicates++;
        }
      }
    }
    pool.shutdown();
    assertEquals(8 * 3_000 + 2 * 300_000, total, "every ID arrived");
    assertEquals(0, duplicates, "no ID twice");
  }
}
