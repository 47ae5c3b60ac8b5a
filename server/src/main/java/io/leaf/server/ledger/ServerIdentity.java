package io.leaf.server.ledger;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The name a server writes with each ledger record: {@code host:port/pid-instance}, the host name,
 * the gRPC port configured, the process ID and 6 random hex digits drawn at each start (a container
 * restarted in place keeps its host name and often its process ID 1).
 */
public final class ServerIdentity {

  private ServerIdentity() {}

  /** This process's identity, serving on {@code port}. */
  public static String of(int port) {
    byte[] instance = new byte[3];
    new SecureRandom().nextBytes(instance);
    return of(hostName(), port, ProcessHandle.current().pid(), HexFormat.of().formatHex(instance));
  }

  static String of(String host, int port, long pid, String instance) {
    String id = host + ":" + port + "/" + pid + "-" + instance;
    // The column holds 255 characters; a host name is at most 253.
    return id.length() <= 255 ? id : id.substring(id.length() - 255);
  }

  private static String hostName() {
    String env = System.getenv("HOSTNAME");
    if (env != null && !env.isBlank()) {
      return env.strip();
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown-host";
    }
  }
}
