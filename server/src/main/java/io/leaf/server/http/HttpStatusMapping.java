package io.leaf.server.http;

import io.leaf.server.engine.AllocatorClosedException;
import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.engine.SegmentWaitTimeoutException;
import io.leaf.server.snowflake.EpochExhaustedException;
import io.leaf.server.snowflake.NoWorkerLeaseException;
import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.InvalidTagStateException;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.TagNotFoundException;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one table from the engine's failures to HTTP statuses, the HTTP twin of the gRPC
 * {@code StatusMapping}: NOT_FOUND → 404, RESOURCE_EXHAUSTED → 429, UNAVAILABLE (the database, the
 * server's cap on waiting, shutdown) → 503, OUT_OF_RANGE (a tag's IDs used up) → 409,
 * FAILED_PRECONDITION (the database refuses Leaf) → 500, anything unexpected → 500 with the cause
 * logged. Invalid input is 400, answered before the engine is asked.
 */
final class HttpStatusMapping {

  private static final Logger log = LoggerFactory.getLogger(HttpStatusMapping.class);

  /** A status and the one-line reason to answer with. */
  record Answer(HttpResponseStatus status, String reason) {}

  private HttpStatusMapping() {}

  static Answer answer(Throwable t) {
    if (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    HttpResponseStatus status;
    if (t instanceof TagNotFoundException) {
      status = HttpResponseStatus.NOT_FOUND;
    } else if (t instanceof LimitExceededException) {
      status = HttpResponseStatus.TOO_MANY_REQUESTS;
    } else if (t instanceof StoreUnavailableException || t instanceof AllocatorClosedException
        || t instanceof SegmentWaitTimeoutException || t instanceof NotServedException
        || t instanceof NoWorkerLeaseException) {
      status = HttpResponseStatus.SERVICE_UNAVAILABLE;
    } else if (t instanceof IdOverflowException || t instanceof EpochExhaustedException) {
      status = HttpResponseStatus.CONFLICT;
    } else if (t instanceof StoreRejectedException || t instanceof InvalidTagStateException) {
      status = HttpResponseStatus.INTERNAL_SERVER_ERROR;
    } else {
      log.error("unexpected failure of an HTTP call", t);
      return new Answer(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error: "
          + t.getClass().getSimpleName() + " (details in the server log)");
    }
    return new Answer(status, String.valueOf(t.getMessage()));
  }
}
