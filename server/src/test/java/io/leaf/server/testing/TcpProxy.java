package io.leaf.server.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder in the test JVM: it listens on one address and copies bytes both ways between
 * each connection it accepts and a new connection to its target. {@link #stop()} closes the
 * listener and every open connection, as a dead database looks to its clients (refused, reset);
 * {@link #start()} listens on the same port again. {@link #silence()} is a partition instead: every
 * connection stays open and nothing gets through either way, until {@link #heal()}. The target
 * itself is never touched.
 */
public final class TcpProxy implements AutoCloseable {

  private final InetAddress listenAddress;
  private final InetSocketAddress target;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile ServerSocket listener;
  private volatile boolean silent;
  private int port;

  /** A proxy to {@code targetHost:targetPort}, not yet listening. */
  public TcpProxy(String listenAddress, String targetHost, int targetPort) throws IOException {
    this.listenAddress = InetAddress.getByName(listenAddress);
    this.target = new InetSocketAddress(targetHost, targetPort);
  }

  /** Listens (on a free port the first time, on the same port after a stop) and forwards. */
  public synchronized TcpProxy start() throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(listenAddress, port), 200);
    port = s.getLocalPort();
    listener = s;
    Thread accept = new Thread(() -> accept(s), "tcp-proxy-accept-" + port);
    accept.setDaemon(true);
    accept.start();
    return this;
  }

  /** The port it listens on. */
  public synchronized int port() {
    return port;
  }

  /** Closes the listener and every connection: new ones are refused, open ones reset. */
  public synchronized void stop() throws IOException {
    ServerSocket s = listener;
    listener = null;
    if (s != null) {
      s.close();
    }
    for (Socket socket : open) {
      closeQuietly(socket);
    }
    open.clear();
  }

  /**
   * A partition: bytes sent either way are dropped and new connections are accepted but never
   * answered; nobody is told (no reset, no close), as when packets are lost on the way.
   */
  public void silence() {
    silent = true;
  }

  /**
   * Ends a {@link #silence()}: the connections it held (their streams lost bytes) are reset, and
   * new ones are forwarded again.
   */
  public synchronized void heal() {
    silent = false;
    for (Socket socket : open) {
      closeQuietly(socket);
    }
    open.clear();
  }

  private void accept(ServerSocket s) {
    while (!s.isClosed()) {
      Socket client;
      try {
        client = s.accept();
      } catch (IOException e) {
        return; // stopped
      }
      Socket upstream = new Socket();
      try {
        open.add(client);
        open.add(upstream);
        if (listener != s) {
          throw new IOException("stopped");
        }
        if (silent) {
          continue; // held open, never answered, until heal() resets it
        }
        upstream.connect(target, 3_000);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        closeQuietly(client);
        closeQuietly(upstream);
      }
    }
  }

  /** Copies {@code from} to {@code to} on a thread of its own until either side closes. */
  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                  if (!silent) {
                    out.write(buffer, 0, n);
                    out.flush();
                  }
                }
              } catch (IOException e) {
                // One side closed or was reset by stop().
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
              }
            },
            "tcp-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.setSoLinger(true, 0); // a reset, not a polite close: the database is gone
    } catch (IOException e) {
      // Not connected: nothing to reset.
    }
    try {
      socket.close();
    } catch (IOException e) {
      // Already closed.
    }
  }

  @Override
  public void close() throws IOException {
    stop();
  }
}
