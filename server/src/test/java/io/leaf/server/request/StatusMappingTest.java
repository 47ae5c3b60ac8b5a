package io.leaf.server.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.engine.SegmentWaitTimeoutException;
import io.leaf.server.store.TagNotFoundException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The statuses of the failures the asynchronous paths deliver (off the call's thread). */
class StatusMappingTest {

  @Test
  void waitTimeout_callersDeadline_deadlineExceeded() {
    assertEquals(
        Status.Code.DEADLINE_EXCEEDED,
        StatusMapping.status(new SegmentWaitTimeoutException("t", 1_000_000, true)).getCode());
  }

  @Test
  void waitTimeout_serverCap_unavailable() {
    Status s = StatusMapping.status(new SegmentWaitTimeoutException("t", 5_000_000_000L, false));
    assertEquals(Status.Code.UNAVAILABLE, s.getCode());
    assertEquals(
        "no segment of biz_tag t arrived from the database within 5000 ms"
            + " (the server's --max-wait)",
        s.getDescription());
  }

  @Test
  void limitExceeded_resourceExhaustedNamingLimitAndFlag() {
    Status s = StatusMapping.status(new LimitExceededException("too many x", 3, "--max-x"));
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, s.getCode());
    assertEquals("too many x (limit 3, --max-x)", s.getDescription());
  }

  @Test
  void completionException_mapsItsCause() {
    assertEquals(
        Status.Code.NOT_FOUND,
        StatusMapping.status(new CompletionException(new TagNotFoundException("ghost"))).getCode());
  }

  @Test
  void invalidPageKey_invalidArgumentNamingPageToken() {
    Status s =
        StatusMapping.status(
            new io.leaf.server.store.InvalidPageKeyException(
                "page key \"\u00e9\" cannot be a biz_tag of this leaf_alloc: Illegal mix of"
                    + " collations",
                null));
    assertEquals(Status.Code.INVALID_ARGUMENT, s.getCode());
    assertTrue(
        s.getDescription().startsWith("page_token is not a token ListTags returned"),
        s.getDescription());
  }

  @Test
  void cancellation_cancelledNotUnknown() {
    assertEquals(
        Status.Code.CANCELLED, StatusMapping.status(new CancellationException()).getCode());
  }
}
