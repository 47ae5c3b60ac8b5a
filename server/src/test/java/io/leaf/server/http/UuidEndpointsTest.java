package io.leaf.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.Ports;
import io.leaf.v1.DecodeUuidRequest;
import io.leaf.v1.NextUuidBatchRequest;
import io.leaf.v1.NextUuidRequest;
import io.leaf.v1.SnowflakeServiceGrpc;
import io.leaf.v1.Uuid;
import io.leaf.v1.UuidBatch;
import io.leaf.v1.UuidParts;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * NextUuid, NextUuidBatch and DecodeUuid over gRPC, and {@code GET /api/uuid/get}: one server for
 * the class (each waits out its worker lease's quarantine first).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UuidEndpointsTest {

  private InProcessLeaf leaf;
  private HttpPortClient http;
  private SnowflakeServiceGrpc.SnowflakeServiceBlockingStub stub;

  @BeforeAll
  void start() throws Exception {
    int port = Ports.free();
    http = new HttpPortClient(port);
    // A claim is held back for the TTL plus 1 s; 3 s renews with margin on a loaded machine.
    leaf =
        new InProcessLeaf(
            new MemorySegmentStore(),
            "--http-port",
            String.valueOf(port),
            "--worker-lease-ttl",
            "3s",
            "--worker-id-range",
            "33-33",
            "--max-batch",
            "100000");
    stub =
        SnowflakeServiceGrpc.newBlockingStub(leaf.channel)
            .withInterceptors(
                new io.grpc.ClientInterceptor() {
                  @Override
                  public <Q, R> io.grpc.ClientCall<Q, R> interceptCall(
                      io.grpc.MethodDescriptor<Q, R> method,
                      io.grpc.CallOptions options,
                      io.grpc.Channel next) {
                    // Every call bounded: a hang fails the test instead of the build.
                    return next.newCall(
                        method,
                        options.getDeadline() != null
                            ? options
                            : options.withDeadlineAfter(60, TimeUnit.SECONDS));
                  }
                });
    assertTrue(
        Poll.until(
            () -> {
              try {
                stub.nextUuid(NextUuidRequest.getDefaultInstance());
                return true;
              } catch (StatusRuntimeException e) {
                return false;
              }
            },
            Duration.ofSeconds(20)),
        "a worker lease within 20 s");
  }

  @AfterAll
  void stop() throws Exception {
    leaf.close();
  }

  @Test
  void nextUuid_leased_version7OfThisWorkerWithTheSameBitsAsUlid() {
    Uuid u = stub.nextUuid(NextUuidRequest.getDefaultInstance());
    UUID uuid = UUID.fromString(u.getValue());
    assertEquals(uuid.toString(), u.getValue(), "canonical lower case");
    assertEquals(7, uuid.version(), "version");
    assertEquals(2, uuid.variant(), "variant");
    assertEquals(26, u.getUlid().length(), "ULID length");
    assertEquals(uuid, io.leaf.server.uuid.Ulid.decode(u.getUlid()), "ULID: the same bits");
    UuidParts parts =
        stub.decodeUuid(DecodeUuidRequest.newBuilder().setValue(u.getValue()).build());
    assertEquals(33, parts.getWorkerId(), "the leased worker ID");
    long now = System.currentTimeMillis();
    assertTrue(
        Math.abs(now - parts.getTimestampMs()) < 10_000,
        "timestamp near now: " + parts.getTimestampMs());
    assertEquals(
        parts,
        stub.decodeUuid(DecodeUuidRequest.newBuilder().setValue(u.getUlid()).build()),
        "the ULID decodes the same");
  }

  @Test
  void decodeUuid_version4_invalidArgument() {
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                stub.decodeUuid(
                    DecodeUuidRequest.newBuilder().setValue(UUID.randomUUID().toString()).build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), e.toString());
  }

  @Test
  void nextUuidBatch_fiftyThousand_strictlyIncreasingAndAboveUnaryOnes() {
    String before = stub.nextUuid(NextUuidRequest.getDefaultInstance()).getValue();
    Iterator<UuidBatch> chunks =
        stub.withDeadlineAfter(60, TimeUnit.SECONDS)
            .nextUuidBatch(
                NextUuidBatchRequest.newBuilder().setCount(50_000).setChunkSize(7_000).build());
    List<String> all = new ArrayList<>();
    while (chunks.hasNext()) {
      UuidBatch chunk = chunks.next();
      assertTrue(chunk.getValuesCount() <= 7_000, "chunk_size holds");
      all.addAll(chunk.getValuesList());
    }
    assertEquals(50_000, all.size(), "count");
    String last = before;
    for (String v : all) {
      assertTrue(last.compareTo(v) < 0, "strictly increasing: " + last + " then " + v);
      last = v;
    }
    assertTrue(
        last.compareTo(stub.nextUuid(NextUuidRequest.getDefaultInstance()).getValue()) < 0,
        "a later unary UUID is above the stream's");
  }

  @Test
  void nextUuidBatch_overMaxBatch_invalidArgument() {
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                stub.nextUuidBatch(NextUuidBatchRequest.newBuilder().setCount(100_001).build())
                    .hasNext());
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), e.toString());
  }

  @Test
  void get_uuidRoute_canonicalVersion7AsTheWholeBody() throws Exception {
    Set<String> seen = new HashSet<>();
    String last = "";
    for (int i = 0; i < 100; i++) {
      HttpResponse<String> r = http.get("/api/uuid/get");
      assertEquals(200, r.statusCode(), r.body());
      assertTrue(
          r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"), "text/plain");
      UUID uuid = UUID.fromString(r.body());
      assertEquals(uuid.toString(), r.body(), "canonical lower case, nothing else");
      assertEquals(7, uuid.version(), "version 7");
      assertTrue(seen.add(r.body()) && last.compareTo(r.body()) < 0, "increasing: " + r.body());
      last = r.body();
    }
  }
}
