package io.leaf.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/**
 * One decoded HTTP request and its answer, which may be given once, from any thread (an ID arrives
 * on a loader or timer thread): the first {@code respond} wins, later ones are ignored. If the
 * client leaves first, the {@link #onCancel} action runs on the connection's thread.
 */
public final class HttpCall {

  static final String TEXT = "text/plain; charset=utf-8";

  private final String method;
  private final String path;
  private final HttpHeaders headers;
  private final HttpVersion version;
  private final boolean keepAlive;
  private final BiConsumer<HttpCall, FullHttpResponse> writer;
  private final AtomicBoolean answered = new AtomicBoolean();
  private volatile Runnable onCancel;

  /**
   * @param path the request's path, as {@link RequestTarget#path} reads it
   */
  HttpCall(HttpRequest request, String path, BiConsumer<HttpCall, FullHttpResponse> writer) {
    this.method = request.method().name();
    this.path = path;
    this.headers = request.headers();
    this.version = request.protocolVersion();
    this.keepAlive = HttpUtil.isKeepAlive(request);
    this.writer = writer;
  }

  /** The method as sent, e.g. {@code GET}. */
  public String method() {
    return method;
  }

  /**
   * The path without the query, still percent-encoded; from an absolute-form target its path, and
   * bytes past ASCII read as UTF-8.
   */
  public String path() {
    return path;
  }

  /** The first value of the header {@code name}; null when absent. */
  public String header(CharSequence name) {
    return headers.get(name);
  }

  boolean keepAlive() {
    return keepAlive;
  }

  /** Answers {@code status} with {@code body} of {@code contentType}. */
  public void respond(HttpResponseStatus status, String contentType, String body) {
    respond(status, contentType, body.getBytes(StandardCharsets.UTF_8));
  }

  public void respond(HttpResponseStatus status, String contentType, byte[] body) {
    respond(status, contentType, Unpooled.wrappedBuffer(body), null);
  }

  /** {@link #respond(HttpResponseStatus, String, String)} with one more header. */
  public void respond(
      HttpResponseStatus status,
      String contentType,
      String body,
      CharSequence header,
      String value) {
    respond(
        status,
        contentType,
        Unpooled.wrappedBuffer(body.getBytes(StandardCharsets.UTF_8)),
        new Object[] {header, value});
  }

  /** An error: {@code status} with {@code reason} as one line of plain text. */
  public void fail(HttpResponseStatus status, String reason) {
    respond(status, TEXT, reason.replace('\n', ' ').replace('\r', ' ') + "\n");
  }

  /** An error that also tells the client what to send (401's {@code WWW-Authenticate}). */
  public void fail(HttpResponseStatus status, String reason, CharSequence header, String value) {
    byte[] body = (reason + "\n").getBytes(StandardCharsets.UTF_8);
    respond(status, TEXT, Unpooled.wrappedBuffer(body), new Object[] {header, value});
  }

  private void respond(
      HttpResponseStatus status, String contentType, ByteBuf body, Object[] extraHeader) {
    if (!answered.compareAndSet(false, true)) {
      body.release();
      return;
    }
    FullHttpResponse response = new DefaultFullHttpResponse(version, status, body);
    HttpHeaders h = response.headers();
    h.set(HttpHeaderNames.CONTENT_TYPE, contentType);
    h.setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
    // IDs and live state: a cache must never answer for the server.
    h.set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
    h.set("X-Content-Type-Options", "nosniff");
    if (extraHeader != null) {
      h.set((CharSequence) extraHeader[0], extraHeader[1]);
    }
    HttpUtil.setKeepAlive(response, keepAlive);
    writer.accept(this, response);
  }

  /** Whether an answer was given. */
  public boolean isAnswered() {
    return answered.get();
  }

  /**
   * Runs {@code action} if the client leaves before the answer (drop the work it waits for). Set it
   * before starting the work; an action set after the client left never runs.
   */
  public void onCancel(Runnable action) {
    this.onCancel = action;
  }

  /** The connection closed: nothing can be answered any more. */
  void cancelled() {
    if (answered.compareAndSet(false, true)) {
      Runnable action = onCancel;
      if (action != null) {
        action.run();
      }
    }
  }
}
