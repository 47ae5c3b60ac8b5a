package io.leaf.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.Status;
import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.engine.SegmentWaitTimeoutException;
import io.leaf.server.engine.ServerClosingException;
import io.leaf.server.formats.NoFormatException;
import io.leaf.server.formats.PeriodBehindException;
import io.leaf.server.ledger.LedgerOffException;
import io.leaf.server.request.NotServedException;
import io.leaf.server.snowflake.EpochExhaustedException;
import io.leaf.server.snowflake.NoWorkerLeaseException;
import io.leaf.server.snowflake.SnowflakeLayout;
import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.InvalidTagStateException;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.TagNotFoundException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** Every failure the HTTP endpoints answer, with the status and reason it gets. */
class HttpStatusMappingTest {

  private static void assertAnswer(int status, String reason, Throwable t) {
    HttpStatusMapping.Answer a = HttpStatusMapping.answer(t);
    assertEquals(status, a.status().code(), "status of " + t);
    assertEquals(reason, a.reason(), "reason of " + t);
  }

  @Test
  void answer_tagNotFound_404() {
    assertAnswer(404, new TagNotFoundException("t").getMessage(), new TagNotFoundException("t"));
  }

  @Test
  void answer_failureWithoutMessage_reasonNamesTheKindNeverNull() {
    HttpStatusMapping.Answer a =
        HttpStatusMapping.answer(new StoreUnavailableException(null, null));
    assertEquals(503, a.status().code());
    assertEquals("unavailable (StoreUnavailableException)", a.reason(), "never \"null\"");
    HttpStatusMapping.Answer bare =
        HttpStatusMapping.answer(new io.grpc.StatusRuntimeException(io.grpc.Status.UNAVAILABLE));
    assertEquals("UNAVAILABLE", bare.reason(), "a status without a description names its code");
  }

  @Test
  void answer_limitExceeded_429() {
    LimitExceededException e = new LimitExceededException("too many x", 3, "--max-x");
    assertAnswer(429, e.getMessage(), e);
  }

  @Test
  void answer_outagesAndWaits_503() {
    assertAnswer(503, "down", new StoreUnavailableException("down", null));
    assertAnswer(503, "no lease", new NoWorkerLeaseException("no lease"));
    assertAnswer(503, "not here", new NotServedException("not here"));
    assertAnswer(503, new ServerClosingException().getMessage(), new ServerClosingException());
    SegmentWaitTimeoutException cap = new SegmentWaitTimeoutException("t", 5_000_000_000L, false);
    assertAnswer(503, cap.getMessage(), cap);
    SegmentWaitTimeoutException callers = new SegmentWaitTimeoutException("t", 1_000_000, true);
    assertAnswer(503, callers.getMessage(), callers);
  }

  @Test
  void answer_idsUsedUp_409() {
    IdOverflowException e = new IdOverflowException("t", Long.MAX_VALUE - 5, 10);
    assertAnswer(409, e.getMessage(), e);
    EpochExhaustedException epoch = new EpochExhaustedException(SnowflakeLayout.DEFAULT);
    assertAnswer(409, epoch.getMessage(), epoch);
  }

  @Test
  void answer_databaseRefusesLeaf_500() {
    assertAnswer(500, "no table", new StoreRejectedException("no table", null));
    assertAnswer(500, "bad row", new InvalidTagStateException("bad row"));
  }

  @Test
  void answer_formattedTagWithoutFormat_409NotTheServersFault() {
    NoFormatException e = new NoFormatException("plain");
    assertAnswer(409, e.getMessage(), e);
    assertAnswer(409, e.getMessage(), new CompletionException(e));
    assertEquals(
        Status.Code.FAILED_PRECONDITION,
        io.leaf.server.request.StatusMapping.status(e).getCode(),
        "gRPC keeps its code");
    assertAnswer(
        500,
        "other",
        new io.grpc.StatusRuntimeException(Status.FAILED_PRECONDITION.withDescription("other")));
  }

  @Test
  void answer_whoIssuedWithTheLedgerOff_501NotTheServersFault() {
    LedgerOffException e = new LedgerOffException();
    assertAnswer(501, e.getMessage(), e);
    assertEquals(
        Status.Code.FAILED_PRECONDITION,
        io.leaf.server.request.StatusMapping.status(e).getCode(),
        "gRPC keeps its code");
  }

  @Test
  void answer_clockBehindAFormattedTagsPeriod_503() {
    PeriodBehindException e = new PeriodBehindException("t", "20261123", "20261126");
    assertAnswer(503, e.getMessage(), e);
  }

  @Test
  void answer_unexpected_500WithoutDetails() {
    assertAnswer(
        500,
        "internal error: IllegalStateException (details in the server log)",
        new IllegalStateException("secret detail"));
  }

  @Test
  void answer_completionException_unwrapped() {
    assertAnswer(
        404,
        new TagNotFoundException("t").getMessage(),
        new CompletionException(new TagNotFoundException("t")));
  }

  @Test
  void httpStatus_everyGrpcCode_documentedStatus() {
    for (Status.Code code : Status.Code.values()) {
      int expected =
          switch (code) {
            case INVALID_ARGUMENT -> 400;
            case NOT_FOUND -> 404;
            case ALREADY_EXISTS, OUT_OF_RANGE -> 409;
            case RESOURCE_EXHAUSTED -> 429;
            case UNAVAILABLE, DEADLINE_EXCEEDED -> 503;
            default -> 500;
          };
      assertEquals(expected, HttpStatusMapping.httpStatus(code).code(), "HTTP status of " + code);
    }
  }
}
