package io.leaf.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.ledger.LedgerSettings;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.LedgeredStore;
import io.leaf.v1.IssuedRange;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.ReservedIds;
import io.leaf.v1.WhoIssuedRequest;
import java.time.InstantSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** WhoIssued over gRPC: the ledger's answer, NOT_FOUND, and a server with the ledger off. */
class WhoIssuedApiTest {

  private InProcessLeaf leaf;

  @AfterEach
  void tearDown() throws Exception {
    if (leaf != null) {
      leaf.close();
    }
  }

  private static WhoIssuedRequest ask(String tag, long id) {
    return WhoIssuedRequest.newBuilder().setBizTag(tag).setId(id).build();
  }

  @Test
  void whoIssued_idOfASegmentAndOfAReservation_theirRanges() throws Exception {
    LedgeredStore store =
        LedgeredStore.memory(InstantSource.system(), LedgerSettings.on("host:1/2-abcdef"));
    store.createTag("t", 1, 100, null);
    leaf = new InProcessLeaf(store);
    long id = leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag("t").build()).getId();
    ReservedIds reserved =
        leaf.blocking.reserveIds(
            ReserveIdsRequest.newBuilder().setBizTag("t").setCount(1000).build());

    IssuedRange r = leaf.blocking.whoIssued(ask("t", id));
    assertEquals(1, r.getStart());
    assertEquals("segment", r.getKind());
    assertEquals("host:1/2-abcdef", r.getServer());
    assertTrue(r.getTimeMs() > 0);
    long lastReserved = reserved.getRanges(reserved.getRangesCount() - 1).getEnd() - 1;
    assertEquals("reserve", leaf.blocking.whoIssued(ask("t", lastReserved)).getKind());
  }

  @Test
  void whoIssued_noRecordHoldsTheId_notFound() throws Exception {
    LedgeredStore store = LedgeredStore.memory(InstantSource.system(), LedgerSettings.on("me"));
    store.createTag("t", 1, 100, null);
    leaf = new InProcessLeaf(store);

    StatusRuntimeException e =
        assertThrows(StatusRuntimeException.class, () -> leaf.blocking.whoIssued(ask("t", 5)));
    assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());
    assertTrue(
        e.getStatus().getDescription().contains("ID 5 of biz_tag t"),
        e.getStatus().getDescription());
  }

  @Test
  void whoIssued_ledgerOff_failedPreconditionNamingTheFlag() throws Exception {
    MemorySegmentStore store = new MemorySegmentStore();
    store.createTag("t", 1, 100, null);
    leaf = new InProcessLeaf(store);

    StatusRuntimeException e =
        assertThrows(StatusRuntimeException.class, () -> leaf.blocking.whoIssued(ask("t", 5)));
    assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode());
    assertTrue(
        e.getStatus().getDescription().contains("--ledger off"), e.getStatus().getDescription());
  }

  @Test
  void whoIssued_emptyTag_invalidArgument() throws Exception {
    leaf = new InProcessLeaf(LedgeredStore.memory(InstantSource.system(), LedgerSettings.on("me")));
    StatusRuntimeException e =
        assertThrows(StatusRuntimeException.class, () -> leaf.blocking.whoIssued(ask("", 5)));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
  }
}
