package io.leaf.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.snowflake.MemoryWorkerLeaseStore;
import io.leaf.server.testing.Ports;
import io.leaf.server.testing.TestServer;
import io.leaf.v1.ClientWorker;
import io.leaf.v1.GetWorkerRequest;
import io.leaf.v1.LeaseWorkerRequest;
import io.leaf.v1.ReleaseWorkerRequest;
import io.leaf.v1.RenewWorkerRequest;
import io.leaf.v1.SnowflakeServiceGrpc;
import io.leaf.v1.WorkerLease;
import io.leaf.v1.WorkerStatus;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.InstantSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** LeaseWorker, RenewWorker and ReleaseWorker through the in-process transport. */
class WorkerLeaseApiTest {

  private final MemoryWorkerLeaseStore table = new MemoryWorkerLeaseStore(InstantSource.system());
  private LeafServer server;
  private ManagedChannel channel;
  private SnowflakeServiceGrpc.SnowflakeServiceBlockingStub stub;
  private int httpPort;

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    httpPort = Ports.free();
    server =
        TestServer.inProcess(name)
            .flags(
                "--worker-lease-ttl",
                "10s",
                "--max-client-leases",
                "2",
                "--worker-id-range",
                "0-7",
                "--http-port",
                Integer.toString(httpPort))
            .leases(table)
            .start();
    channel = InProcessChannelBuilder.forName(name).build();
    stub = SnowflakeServiceGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow();
    server.stop();
  }

  private WorkerLease lease() {
    return stub.leaseWorker(LeaseWorkerRequest.getDefaultInstance());
  }

  private String monitorPage() throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return r.body();
  }

  private static void refused(Status.Code code, String part, Executable call) {
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
    assertEquals(code, e.getStatus().getCode(), e.getStatus().toString());
    assertTrue(e.getStatus().getDescription().contains(part), e.getStatus().getDescription());
  }

  @Test
  void leaseWorker_answersRulesAndLayout_boundedByFlag() throws Exception {
    WorkerLease a = lease();
    WorkerLease b = lease();
    assertNotEquals(a.getWorkerId(), b.getWorkerId());
    assertEquals(11_000, a.getNotBeforeMs(), "quarantine: the TTL plus 1 s");
    assertEquals(8_000, a.getValidForMs(), "the TTL less a fifth");
    assertTrue(a.getFloorMs() > System.currentTimeMillis(), "floor above the database's time");
    assertTrue(a.getCeilingMs() > a.getFloorMs());
    assertEquals(36, a.getLeaseId().length());
    WorkerStatus status = stub.getWorker(GetWorkerRequest.getDefaultInstance());
    assertEquals(status.getEpochMs(), a.getEpochMs());
    assertEquals(status.getTimestampBits(), a.getTimestampBits());
    assertEquals(status.getWorkerIdBits(), a.getWorkerIdBits());
    assertEquals(status.getSequenceBits(), a.getSequenceBits());
    assertEquals(
        java.util.Set.of(a.getWorkerId(), b.getWorkerId()),
        java.util.Set.copyOf(
            status.getClientWorkersList().stream().map(ClientWorker::getWorkerId).toList()),
        "GetWorker lists the client-held workers");
    String page = monitorPage();
    assertTrue(page.contains("2 of at most 2"), page);
    assertTrue(page.contains("client worker " + a.getWorkerId()), page);
    refused(Status.Code.RESOURCE_EXHAUSTED, "--max-client-leases", this::lease);
    stub.releaseWorker(ReleaseWorkerRequest.newBuilder().setLeaseId(a.getLeaseId()).build());
    assertEquals(1, stub.getWorker(GetWorkerRequest.getDefaultInstance()).getClientWorkersCount());
    assertEquals(0, table.row(a.getWorkerId()).orElseThrow().expiresMs(), "released at once");
    lease();
  }

  @Test
  void renewWorker_raisesCeiling_unknownNotFound_emptyInvalid() {
    WorkerLease a = lease();
    WorkerLease r =
        stub.renewWorker(RenewWorkerRequest.newBuilder().setLeaseId(a.getLeaseId()).build());
    assertEquals(a.getWorkerId(), r.getWorkerId());
    assertEquals(0, r.getNotBeforeMs(), "a timely renewal is no new claim");
    assertTrue(r.getCeilingMs() >= a.getCeilingMs());
    WorkerLease lapsed =
        stub.renewWorker(
            RenewWorkerRequest.newBuilder().setLeaseId(a.getLeaseId()).setLapsed(true).build());
    assertEquals(11_000, lapsed.getNotBeforeMs(), "a lapsed renewal is quarantined");
    refused(
        Status.Code.NOT_FOUND,
        "lease_id",
        () ->
            stub.renewWorker(
                RenewWorkerRequest.newBuilder()
                    .setLeaseId("00000000-0000-0000-0000-000000000000")
                    .build()));
    refused(
        Status.Code.INVALID_ARGUMENT,
        "lease_id",
        () -> stub.renewWorker(RenewWorkerRequest.getDefaultInstance()));
    table.rewrite(a.getWorkerId(), null);
    refused(
        Status.Code.FAILED_PRECONDITION,
        "lease again",
        () -> stub.renewWorker(RenewWorkerRequest.newBuilder().setLeaseId(a.getLeaseId()).build()));
    stub.releaseWorker(ReleaseWorkerRequest.newBuilder().setLeaseId(a.getLeaseId()).build());
  }
}
