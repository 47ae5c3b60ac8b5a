package io.leaf.server.ordering;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import javax.net.ssl.SSLException;

/**
 * What a caller is told when the owner could not serve a call forwarded to it: its own answer as it
 * is, or UNAVAILABLE naming the tag, the owner and why, in one line.
 */
final class OwnerFailures {

  private OwnerFailures() {}

  /** The failure a caller sees when {@code owner} could not serve a forwarded call on the tag. */
  static Throwable told(Throwable t, String owner, String bizTag) {
    Status s = Status.fromThrowable(t);
    if (s.getCode() != Status.Code.UNAVAILABLE) {
      return t instanceof StatusRuntimeException ? t : s.asRuntimeException();
    }
    return Status.UNAVAILABLE
        .withDescription(
            "tag "
                + bizTag
                + " is STRICT and its owner "
                + owner
                + " cannot serve it now ("
                + why(s)
                + "); retry")
        .asRuntimeException();
  }

  /** An address gRPC cannot use, a channel that cannot be made: UNAVAILABLE naming the owner. */
  static Throwable unusable(RuntimeException e, String owner, String bizTag) {
    return told(
        Status.UNAVAILABLE
            .withDescription(String.valueOf(e.getMessage()))
            .withCause(e)
            .asRuntimeException(),
        owner,
        bizTag);
  }

  private static String why(Status s) {
    for (Throwable c = s.getCause(); c != null; c = c.getCause()) {
      if (c instanceof SSLException) {
        return "TLS: "
            + firstLine(c.getMessage())
            + "; the owner's certificate must chain to --tls-peer-ca and name the host of its"
            + " --advertise-address, and where the owner asks for client certificates this"
            + " server's --tls-cert must allow client authentication";
      }
    }
    return firstLine(s.getDescription() == null ? s.getCode().toString() : s.getDescription());
  }

  private static String firstLine(String text) {
    if (text == null) {
      return "";
    }
    int end = text.indexOf('\n');
    return end < 0 ? text : text.substring(0, end);
  }
}
