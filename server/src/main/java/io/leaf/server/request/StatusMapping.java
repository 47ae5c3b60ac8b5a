package io.leaf.server.request;

import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.engine.SegmentWaitTimeoutException;
import io.leaf.server.engine.ServerClosingException;
import io.leaf.server.formats.FormatKeyMismatchException;
import io.leaf.server.formats.FormatVersionTakenException;
import io.leaf.server.formats.InvalidFormatException;
import io.leaf.server.formats.NoFormatException;
import io.leaf.server.formats.PeriodBehindException;
import io.leaf.server.formats.UnsafeFormatChangeException;
import io.leaf.server.formats.ValueMismatchException;
import io.leaf.server.formats.WidthExhaustedException;
import io.leaf.server.ledger.NotIssuedException;
import io.leaf.server.region.MaxIdOutsideRegionException;
import io.leaf.server.snowflake.EpochExhaustedException;
import io.leaf.server.snowflake.NoWorkerLeaseException;
import io.leaf.server.snowflake.UnknownWorkerLeaseException;
import io.leaf.server.snowflake.WorkerLeaseLostException;
import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.InvalidPageKeyException;
import io.leaf.server.store.InvalidTagStateException;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.TagAlreadyExistsException;
import io.leaf.server.store.TagNotFoundException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one table from failures to statuses: a gRPC code and the message the caller reads. HTTP
 * derives its status from the code ({@code HttpStatusMapping}), so the two protocols never
 * disagree.
 */
public final class StatusMapping {

  private static final Logger log = LoggerFactory.getLogger(StatusMapping.class);

  private StatusMapping() {}

  public static StatusException toStatus(Throwable t) {
    return status(t).asException();
  }

  /**
   * The status of {@code t} (unwrapped from a {@link CompletionException}); anything unexpected is
   * INTERNAL with its cause logged here and no detail in the description.
   */
  public static Status status(Throwable t) {
    if (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof StatusRuntimeException sre) {
      return sre.getStatus();
    }
    if (t instanceof StatusException se) {
      return se.getStatus();
    }
    Status code;
    if (t instanceof InvalidArgumentException
        || t instanceof InvalidFormatException
        || t instanceof UnsafeFormatChangeException
        || t instanceof ValueMismatchException
        || t instanceof MaxIdOutsideRegionException) {
      code = Status.INVALID_ARGUMENT;
    } else if (t instanceof InvalidPageKeyException) {
      // The key came from a page_token: name the field the caller set.
      return Status.INVALID_ARGUMENT.withDescription(
          "page_token is not a token ListTags returned" + " for this table: " + t.getMessage());
    } else if (t instanceof TagNotFoundException
        || t instanceof NotIssuedException
        || t instanceof UnknownWorkerLeaseException) {
      code = Status.NOT_FOUND;
    } else if (t instanceof TagAlreadyExistsException) {
      code = Status.ALREADY_EXISTS;
    } else if (t instanceof IdOverflowException
        || t instanceof EpochExhaustedException
        || t instanceof WidthExhaustedException) {
      code = Status.OUT_OF_RANGE;
    } else if (t instanceof InvalidTagStateException || t instanceof WorkerLeaseLostException) {
      code = Status.FAILED_PRECONDITION;
    } else if (t instanceof StoreRejectedException
        || t instanceof NoFormatException
        || t instanceof FormatKeyMismatchException) {
      code = Status.FAILED_PRECONDITION;
    } else if (t instanceof StoreUnavailableException
        || t instanceof ServerClosingException
        || t instanceof NoWorkerLeaseException
        || t instanceof NotServedException
        || t instanceof PeriodBehindException) {
      code = Status.UNAVAILABLE;
    } else if (t instanceof FormatVersionTakenException) {
      code = Status.ABORTED;
    } else if (t instanceof LimitExceededException) {
      code = Status.RESOURCE_EXHAUSTED;
    } else if (t instanceof SegmentWaitTimeoutException timeout) {
      // The caller's own deadline is DEADLINE_EXCEEDED; the server's cap on waiting is an outage.
      code = timeout.callersDeadline() ? Status.DEADLINE_EXCEEDED : Status.UNAVAILABLE;
    } else if (t instanceof CancellationException) {
      code = Status.CANCELLED;
    } else {
      log.error("unexpected failure", t);
      return Status.INTERNAL.withDescription(
          "internal error: " + t.getClass().getSimpleName() + " (details in the server log)");
    }
    // The cause never leaves the server; interceptors read it (metrics count refusals by limit).
    String message = t.getMessage();
    return code.withDescription(
            message != null
                ? message
                : code.getCode().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
                    + " ("
                    + t.getClass().getSimpleName()
                    + ")")
        .withCause(t);
  }
}
