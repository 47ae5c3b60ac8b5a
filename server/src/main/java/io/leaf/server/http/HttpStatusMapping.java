package io.leaf.server.http;

import io.grpc.Status;
import io.leaf.server.api.StatusMapping;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * The HTTP status of a failure, derived from its gRPC code in {@link StatusMapping} (the one
 * table): the reason is the gRPC description.
 *
 * <p>INVALID_ARGUMENT → 400; NOT_FOUND → 404; ALREADY_EXISTS and OUT_OF_RANGE (a tag's IDs used
 * up) → 409; RESOURCE_EXHAUSTED → 429; UNAVAILABLE and DEADLINE_EXCEEDED (the database, the wait
 * for a segment, shutdown) → 503; anything else, FAILED_PRECONDITION (the database refuses Leaf)
 * and INTERNAL among them → 500.
 */
final class HttpStatusMapping {

  /** A status and the one-line reason to answer with. */
  record Answer(HttpResponseStatus status, String reason) {}

  private HttpStatusMapping() {}

  static Answer answer(Throwable t) {
    Status status = StatusMapping.status(t);
    return new Answer(httpStatus(status.getCode()), status.getDescription() != null
        ? status.getDescription() : status.getCode().name());
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
