package io.leaf.server.http;

import io.grpc.Status;
import io.leaf.server.formats.NoFormatException;
import io.leaf.server.ledger.LedgerOffException;
import io.leaf.server.request.StatusMapping;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * The HTTP status of a failure, derived from its gRPC code in {@link StatusMapping} (the one
 * table): the reason is the gRPC description.
 *
 * <p>INVALID_ARGUMENT → 400; NOT_FOUND → 404; ALREADY_EXISTS and OUT_OF_RANGE (a tag's IDs used up,
 * a formatted tag's period past its width) → 409; RESOURCE_EXHAUSTED → 429; UNAVAILABLE and
 * DEADLINE_EXCEEDED (the database, the wait for a segment, shutdown, a clock behind a formatted
 * tag's period) → 503; anything else → 500, among them INTERNAL and FAILED_PRECONDITION where the
 * server cannot serve the call (the database refuses Leaf; an opaque format and this server's
 * {@code --format-key-file} differ).
 *
 * <p>Two FAILED_PRECONDITIONs are not a server fault, and say so: a formatted number of a tag that
 * has no format ({@link NoFormatException}) is 409 Conflict — the request conflicts with the tag's
 * state until an admin sets a format; WhoIssued on a server started with {@code --ledger off}
 * ({@link LedgerOffException}) is 501 Not Implemented — this server was set up without what the
 * request needs.
 */
final class HttpStatusMapping {

  /** A status and the one-line reason to answer with. */
  record Answer(HttpResponseStatus status, String reason) {}

  private HttpStatusMapping() {}

  static Answer answer(Throwable t) {
    Status status = StatusMapping.status(t);
    Throwable cause = status.getCause();
    HttpResponseStatus http =
        cause instanceof NoFormatException
            ? HttpResponseStatus.CONFLICT
            : cause instanceof LedgerOffException
                ? HttpResponseStatus.NOT_IMPLEMENTED
                : httpStatus(status.getCode());
    return new Answer(
        http, status.getDescription() != null ? status.getDescription() : status.getCode().name());
  }

  static HttpResponseStatus httpStatus(Status.Code code) {
    return switch (code) {
      case INVALID_ARGUMENT -> HttpResponseStatus.BAD_REQUEST;
      case NOT_FOUND -> HttpResponseStatus.NOT_FOUND;
      case ALREADY_EXISTS, OUT_OF_RANGE -> HttpResponseStatus.CONFLICT;
      case RESOURCE_EXHAUSTED -> HttpResponseStatus.TOO_MANY_REQUESTS;
      case UNAVAILABLE, DEADLINE_EXCEEDED -> HttpResponseStatus.SERVICE_UNAVAILABLE;
      default -> HttpResponseStatus.INTERNAL_SERVER_ERROR;
    };
  }
}
