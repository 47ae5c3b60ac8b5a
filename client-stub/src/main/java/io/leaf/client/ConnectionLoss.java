package io.leaf.client;

import io.grpc.Status;
import java.io.IOException;
import java.util.Locale;

/**
 * Whether a status is the transport's report of a lost connection rather than a server's answer.
 *
 * <p>Such a status is UNAVAILABLE, or the UNKNOWN that grpc-java's Netty transport gives a call
 * whose connection was closed or reset under it ("channel closed", a {@link
 * java.nio.channels.ClosedChannelException} or another {@link IOException} as its cause).
 */
final class ConnectionLoss {

  private ConnectionLoss() {}

  /** True when {@code status} says the connection was lost or could not be made. */
  static boolean lost(Status status) {
    if (status.getCode() == Status.Code.UNAVAILABLE) {
      return true;
    }
    if (status.getCode() != Status.Code.UNKNOWN) {
      return false;
    }
    for (Throwable c = status.getCause(); c != null; c = c.getCause()) {
      if (c instanceof IOException) {
        return true;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    String d = status.getDescription();
    if (d == null) {
      return false;
    }
    String lower = d.toLowerCase(Locale.ROOT);
    return lower.equals("channel closed") || lower.contains("connection reset");
  }
}
