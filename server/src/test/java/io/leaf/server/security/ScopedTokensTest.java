package io.leaf.server.security;

import static io.leaf.server.testing.TokenFiles.line;
import static io.leaf.server.testing.TokenFiles.secret;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.client.BearerToken;
import io.leaf.client.LeafClient;
import io.leaf.client.LeafException;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.metrics.Metrics;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetWorkerRequest;
import io.leaf.v1.LeafServiceGrpc.LeafServiceBlockingStub;
import io.leaf.v1.LeaseWorkerRequest;
import io.leaf.v1.ListTagsRequest;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ReleaseWorkerRequest;
import io.leaf.v1.RenewWorkerRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.SnowflakeServiceGrpc;
import io.leaf.v1.Tag;
import io.leaf.v1.UpdateStepRequest;
import io.leaf.v1.WorkerLease;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** Tokens of a token file on gRPC: roles, scopes, rates, and the file changed while serving. */
class ScopedTokensTest {

  private static final String FILE =
      "# team tokens\n"
          + line("orders", "reserve", "orders,orders.*", null)
          + line("billing", "issue", "billing", null)
          + line("eu-admin", "admin", "eu.*", null)
          + line("ops", "admin", "*", null)
          + line("slow", "issue", "*", "10/s:10");

  @TempDir Path dir;
  private Path file;
  private final FakeTicker ticker = new FakeTicker();
  private final Metrics metrics = new Metrics();
  private TokensFile tokens;
  private InProcessLeaf leaf;

  @BeforeEach
  void start() throws Exception {
    file = dir.resolve("tokens");
    Files.writeString(file, FILE);
    tokens = new TokensFile(file, ticker, metrics.tokenMeters(), null, null);
    MemorySegmentStore store = new MemorySegmentStore();
    for (String tag : List.of("orders", "orders.eu", "ordersx", "billing", "eu.x")) {
      store.createTag(tag, 1, 100, "");
    }
    TokenAccess access = new TokenAccess(tokens);
    leaf =
        new InProcessLeaf(
            store, Ticker.systemTicker(), EngineConfig.DEFAULTS, b -> b.access(access));
  }

  @AfterEach
  void stop() throws Exception {
    leaf.close();
    tokens.close();
    metrics.close();
  }

  private LeafServiceBlockingStub as(String name) {
    return leaf.blocking.withCallCredentials(new BearerToken(secret(name)));
  }

  private static long nextId(LeafServiceBlockingStub stub, String tag) {
    return stub.nextId(NextIdRequest.newBuilder().setBizTag(tag).build()).getId();
  }

  private static StatusRuntimeException refused(Status.Code code, String part, Executable call) {
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
    assertEquals(code, e.getStatus().getCode(), e.getStatus().toString());
    assertTrue(
        e.getStatus().getDescription().contains(part),
        "names " + part + ": " + e.getStatus().getDescription());
    return e;
  }

  @Test
  void nextId_tagInScope_servedByNameAndPrefix() {
    assertEquals(1, nextId(as("orders"), "orders"));
    assertEquals(1, nextId(as("orders"), "orders.eu"), "orders.* holds orders.eu");
    assertEquals(1, nextId(as("billing"), "billing"));
  }

  @Test
  void nextId_anotherTag_permissionDeniedNamingTheTag() {
    refused(Status.Code.PERMISSION_DENIED, "tag 'ordersx'", () -> nextId(as("orders"), "ordersx"));
    refused(Status.Code.PERMISSION_DENIED, "tag 'orders'", () -> nextId(as("billing"), "orders"));
    refused(
        Status.Code.PERMISSION_DENIED,
        "tag 'billing'",
        () ->
            as("orders")
                .nextIdBatch(
                    NextIdBatchRequest.newBuilder().setBizTag("billing").setCount(3).build())
                .forEachRemaining(b -> {}));
    assertEquals(1, nextId(as("ops"), "ordersx"), "nothing was taken from ordersx");
  }

  @Test
  void whoIssued_issueRoleOfTheTag_allowedAnotherTagDenied() {
    long id = nextId(as("billing"), "billing");
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                as("billing")
                    .whoIssued(
                        io.leaf.v1.WhoIssuedRequest.newBuilder()
                            .setBizTag("billing")
                            .setId(id)
                            .build()));
    // In scope: the call reaches the store, which keeps no ledger here.
    assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode(), e.toString());
    refused(
        Status.Code.PERMISSION_DENIED,
        "tag 'orders'",
        () ->
            as("billing")
                .whoIssued(
                    io.leaf.v1.WhoIssuedRequest.newBuilder().setBizTag("orders").setId(1).build()));
  }

  @Test
  void decodeScatteredId_issueRoleOfTheTag_allowedAnotherTagDeniedNoTokenRefused() {
    io.leaf.v1.DecodeScatteredIdRequest billing =
        io.leaf.v1.DecodeScatteredIdRequest.newBuilder().setBizTag("billing").setId(5).build();
    // In scope: the call reaches the handler, which finds billing is not SCATTERED.
    refused(
        Status.Code.FAILED_PRECONDITION,
        "not scattered",
        () -> as("billing").decodeScatteredId(billing));
    refused(
        Status.Code.PERMISSION_DENIED,
        "tag 'billing'",
        () -> as("orders").decodeScatteredId(billing));
    StatusRuntimeException none =
        assertThrows(StatusRuntimeException.class, () -> leaf.blocking.decodeScatteredId(billing));
    assertEquals(Status.Code.UNAUTHENTICATED, none.getStatus().getCode(), none.toString());
  }

  @Test
  void reserveIds_needsReserve_issueRoleDeniedNamingTheRole() {
    refused(
        Status.Code.PERMISSION_DENIED,
        "role reserve",
        () ->
            as("billing")
                .reserveIds(
                    ReserveIdsRequest.newBuilder().setBizTag("billing").setCount(5).build()));
    assertEquals(
        5,
        as("orders")
                .reserveIds(ReserveIdsRequest.newBuilder().setBizTag("orders").setCount(5).build())
                .getRanges(0)
                .getEnd()
            - 1);
  }

  @Test
  void adminRpcs_needAdminInScope() {
    refused(
        Status.Code.PERMISSION_DENIED,
        "role admin",
        () ->
            as("orders").createTag(CreateTagRequest.newBuilder().setBizTag("orders.new").build()));
    refused(
        Status.Code.PERMISSION_DENIED,
        "role admin",
        () ->
            as("orders")
                .updateStep(UpdateStepRequest.newBuilder().setBizTag("orders").setStep(5).build()));
    as("eu-admin").createTag(CreateTagRequest.newBuilder().setBizTag("eu.new").build());
    assertEquals(
        9,
        as("eu-admin")
            .updateStep(UpdateStepRequest.newBuilder().setBizTag("eu.new").setStep(9).build())
            .getStep());
    refused(
        Status.Code.PERMISSION_DENIED,
        "tag 'us.new'",
        () -> as("eu-admin").createTag(CreateTagRequest.newBuilder().setBizTag("us.new").build()));
    as("ops").createTag(CreateTagRequest.newBuilder().setBizTag("us.new").build());
  }

  @Test
  void noOrUnknownToken_unauthenticatedOrDenied() {
    refused(
        Status.Code.UNAUTHENTICATED,
        "authorization: Bearer",
        () -> nextId(leaf.blocking, "orders"));
    StatusRuntimeException e =
        refused(
            Status.Code.PERMISSION_DENIED,
            "no such token",
            () -> nextId(leaf.blocking.withCallCredentials(new BearerToken("guess")), "orders"));
    assertFalse(e.getStatus().getDescription().contains("guess"));
  }

  @Test
  void listTags_onlyTheTagsInScope() {
    assertEquals(
        List.of("orders", "orders.eu"),
        as("orders").listTags(ListTagsRequest.getDefaultInstance()).getTagsList().stream()
            .map(Tag::getBizTag)
            .toList());
    assertEquals(5, as("ops").listTags(ListTagsRequest.getDefaultInstance()).getTagsCount());
  }

  @Test
  void snowflakeRpcs_anyScopeWithIssue() {
    SnowflakeServiceGrpc.SnowflakeServiceBlockingStub stub =
        SnowflakeServiceGrpc.newBlockingStub(leaf.channel)
            .withCallCredentials(new BearerToken(secret("billing")));
    stub.getWorker(GetWorkerRequest.getDefaultInstance());
    refused(
        Status.Code.UNAUTHENTICATED,
        "GetWorker",
        () ->
            SnowflakeServiceGrpc.newBlockingStub(leaf.channel)
                .getWorker(GetWorkerRequest.getDefaultInstance()));
  }

  @Test
  void workerLeaseRpcs_anyScopeWithIssue_refusedWithoutToken() {
    SnowflakeServiceGrpc.SnowflakeServiceBlockingStub stub =
        SnowflakeServiceGrpc.newBlockingStub(leaf.channel)
            .withCallCredentials(new BearerToken(secret("billing")));
    WorkerLease lease = stub.leaseWorker(LeaseWorkerRequest.getDefaultInstance());
    assertTrue(lease.getWorkerId() >= 0, "an issue token of another scope leases a worker");
    stub.releaseWorker(ReleaseWorkerRequest.newBuilder().setLeaseId(lease.getLeaseId()).build());
    SnowflakeServiceGrpc.SnowflakeServiceBlockingStub anonymous =
        SnowflakeServiceGrpc.newBlockingStub(leaf.channel);
    refused(
        Status.Code.UNAUTHENTICATED,
        "LeaseWorker",
        () -> anonymous.leaseWorker(LeaseWorkerRequest.getDefaultInstance()));
    refused(
        Status.Code.UNAUTHENTICATED,
        "RenewWorker",
        () ->
            anonymous.renewWorker(
                RenewWorkerRequest.newBuilder().setLeaseId(lease.getLeaseId()).build()));
  }

  @Test
  void rate_overLimit_resourceExhaustedWithHintWhileOthersServed() {
    as("slow")
        .nextIdBatch(NextIdBatchRequest.newBuilder().setBizTag("billing").setCount(10).build())
        .forEachRemaining(b -> {});
    StatusRuntimeException e =
        refused(
            Status.Code.RESOURCE_EXHAUSTED, "token 'slow'", () -> nextId(as("slow"), "billing"));
    assertTrue(
        e.getStatus().getDescription().contains("10 IDs/s with a burst of 10"),
        e.getStatus().getDescription());
    assertEquals(
        "100",
        e.getTrailers()
            .get(
                Metadata.Key.of(
                    TokenAuthInterceptor.RETRY_AFTER_MS, Metadata.ASCII_STRING_MARSHALLER)),
        "one ID: 100 ms");
    for (int i = 0; i < 100; i++) {
      nextId(as("orders"), "orders");
    }
    refused(Status.Code.RESOURCE_EXHAUSTED, "token 'slow'", () -> nextId(as("slow"), "billing"));
    ticker.advance(Duration.ofMillis(100));
    assertEquals(11, nextId(as("slow"), "billing"), "one ID's worth later it is served again");
    refused(
        Status.Code.RESOURCE_EXHAUSTED,
        "ask in parts of at most 10",
        () ->
            as("slow")
                .nextIdBatch(
                    NextIdBatchRequest.newBuilder().setBizTag("billing").setCount(11).build())
                .forEachRemaining(b -> {}));
    String scrape = metrics.scrape();
    assertTrue(
        scrape.contains("leaf_token_ids_total{outcome=\"granted\",token=\"slow\"} 11.0"), scrape);
    assertTrue(
        scrape.contains("leaf_token_ids_total{outcome=\"refused\",token=\"slow\"} 13.0"),
        "two single IDs and a batch of 11 refused");
    assertTrue(scrape.contains("leaf_token_ids_total{outcome=\"granted\",token=\"orders\"} 100.0"));
  }

  @Test
  void leafClient_tokenPerTagPrefix_eachTagItsTeamsToken() {
    LeafClient client =
        LeafClient.forChannel(leaf.channel)
            .tagToken("orders", secret("orders"))
            .tagToken("billing", secret("billing"))
            .build();
    assertEquals(1, client.nextId("orders.eu"));
    assertEquals(1, client.nextId("billing"));
    assertEquals(
        5,
        client.reserveIds("orders", 5).stream().mapToLong(r -> r.size()).sum(),
        "the orders token may reserve");
    LeafException e = assertThrows(LeafException.class, () -> client.nextId("eu.x"));
    assertEquals(Status.Code.UNAUTHENTICATED, e.code(), "no token for eu.*: none sent");
  }

  @Test
  void fileChanged_reReadWithoutRestart_bucketsKept() throws Exception {
    as("slow")
        .nextIdBatch(NextIdBatchRequest.newBuilder().setBizTag("billing").setCount(10).build())
        .forEachRemaining(b -> {});
    Files.writeString(
        file,
        line("orders", "issue", "orders", null)
            + line("newbie", "issue", "billing", null)
            + line("slow", "issue", "*", "10/s:10"));
    assertTrue(tokens.reload());
    assertEquals(1, nextId(as("newbie"), "billing") - 10, "a new token serves at once");
    refused(Status.Code.PERMISSION_DENIED, "no such token", () -> nextId(as("billing"), "billing"));
    refused(
        Status.Code.PERMISSION_DENIED, "tag 'orders.eu'", () -> nextId(as("orders"), "orders.eu"));
    refused(
        Status.Code.PERMISSION_DENIED,
        "role reserve",
        () ->
            as("orders")
                .reserveIds(
                    ReserveIdsRequest.newBuilder().setBizTag("orders").setCount(1).build()));
    refused(Status.Code.RESOURCE_EXHAUSTED, "token 'slow'", () -> nextId(as("slow"), "billing"));
    assertFalse(tokens.reload(), "unchanged content: nothing replaced");
  }

  @Test
  void fileBrokenWhileRunning_previousTokensKeepServing() throws Exception {
    Files.writeString(file, line("orders", "issue", "orders", null) + "oops sha256:beef issue *\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, tokens::reload);
    assertTrue(e.getMessage().contains("line 2: HASH of oops"), e.getMessage());
    assertEquals(1, nextId(as("billing"), "billing"), "the previous file's tokens still serve");
    assertEquals(1, nextId(as("orders"), "orders.eu"));
  }
}
