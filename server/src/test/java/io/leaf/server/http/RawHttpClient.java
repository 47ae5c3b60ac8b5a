package io.leaf.server.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A test client on a plain socket: sends exactly the bytes it is given (half a request, pipelined
 * requests) and reads responses one by one, so tests can play the slow, stalled or pipelining
 * client that {@code java.net.http} will not.
 */
final class RawHttpClient implements AutoCloseable {

  /** One response: status code, headers as sent, body. */
  record Response(int status, String head, String body) {}

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawHttpClient(int port, int readTimeoutMillis) throws IOException {
    this(port, readTimeoutMillis, 0);
  }

  /**
   * A client whose socket receives into about {@code receiveBufferBytes} (0: the system's default),
   * set before it connects so that the window it offers the server stays that small.
   */
  RawHttpClient(int port, int readTimeoutMillis, int receiveBufferBytes) throws IOException {
    socket = new Socket();
    if (receiveBufferBytes > 0) {
      socket.setReceiveBufferSize(receiveBufferBytes);
    }
    socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    socket.setSoTimeout(readTimeoutMillis);
    in = socket.getInputStream();
    out = socket.getOutputStream();
  }

  void send(String raw) throws IOException {
    send(raw.getBytes(StandardCharsets.UTF_8));
  }

  /** Sends {@code raw} as it is (bytes that are not UTF-8, say). */
  void send(byte[] raw) throws IOException {
    out.write(raw);
    out.flush();
  }

  /** Reads one response (its body by Content-Length); null when the server closed first. */
  Response read() throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        return null;
      }
      head.write(b);
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    String headText = head.toString(StandardCharsets.ISO_8859_1);
    int length = 0;
    for (String line : headText.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    byte[] body = in.readNBytes(length);
    int status = Integer.parseInt(headText.substring(9, 12));
    return new Response(status, headText, new String(body, StandardCharsets.UTF_8));
  }

  /** True when the server closed the connection (a read ends the stream). */
  boolean closedByServer() throws IOException {
    return in.read() < 0;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
