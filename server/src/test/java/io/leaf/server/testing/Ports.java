package io.leaf.server.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** Loopback ports for servers a test starts: the one place a test asks the system for a port. */
public final class Ports {

  private Ports() {}

  /**
   * A port free at the time of the call. Another process may take it before the server binds it;
   * tests accept that small window rather than let the server pick and report its port.
   */
  public static int free() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port", e);
    }
  }
}
