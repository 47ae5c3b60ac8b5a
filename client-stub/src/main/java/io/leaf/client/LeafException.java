package io.leaf.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * A failed Leaf call, carrying the gRPC status code the server (or the channel) answered with.
 *
 * <p>Subclasses name the failures a caller reacts to; anything else (INTERNAL, CANCELLED,
 * PERMISSION_DENIED, …) arrives as this class with its {@link #code()}. Callers never need to parse
 * the message.
 */
public class LeafException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final Status.Code code;
  private final String description;

  public LeafException(Status.Code code, String description, Throwable cause) {
    super(code + ": " + description, cause);
    this.code = code;
    this.description = description;
  }

  /** The gRPC status code of the failure. */
  public Status.Code code() {
    return code;
  }

  /** The server's description of the failure, without the code. */
  public String description() {
    return description;
  }

  /** A new exception of the same type and status for another thread, with this one as cause. */
  LeafException rethrowable() {
    return from(code, description, this);
  }

  /** The typed exception for a failed call; the original status exception is the cause. */
  static LeafException from(StatusRuntimeException e) {
    return from(e.getStatus(), e);
  }

  /** The typed exception for {@code status}, with {@code cause} (may be null). */
  static LeafException from(Status status, Throwable cause) {
    String message = status.getDescription() == null ? "(no description)" : status.getDescription();
    return from(status.getCode(), message, cause);
  }

  private static LeafException from(Status.Code code, String message, Throwable cause) {
    return switch (code) {
      case NOT_FOUND -> new TagNotFoundException(message, cause);
      case ALREADY_EXISTS -> new TagAlreadyExistsException(message, cause);
      case INVALID_ARGUMENT -> new InvalidArgumentException(message, cause);
      case OUT_OF_RANGE -> new OutOfRangeException(message, cause);
      case FAILED_PRECONDITION -> new FailedPreconditionException(message, cause);
      case UNAVAILABLE -> new LeafUnavailableException(message, cause);
      case DEADLINE_EXCEEDED -> new LeafDeadlineExceededException(message, cause);
      default -> new LeafException(code, message, cause);
    };
  }
}
