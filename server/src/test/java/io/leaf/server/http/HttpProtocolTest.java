package io.leaf.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.config.HttpConfig;
import io.leaf.server.threads.ServerThreads;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the HTTP server speaks: HTTP/1.0 and 1.1 only, every refusal a precise status with a
 * one-line reason, request targets in origin and absolute form with UTF-8 paths, and pipelined
 * requests answered in order up to the bound.
 */
class HttpProtocolTest {

  private final BlockingQueue<HttpCall> held = new LinkedBlockingQueue<>();
  private final List<AutoCloseable> open = new ArrayList<>();
  private LeafHttpServer server;

  @BeforeEach
  void start() {
    HttpRoutes routes =
        new HttpRoutes()
            .get("/fast", call -> call.respond(HttpResponseStatus.OK, HttpCall.TEXT, "fast"))
            .prefix(
                "/post",
                Set.of("POST"),
                call -> call.respond(HttpResponseStatus.OK, HttpCall.TEXT, "posted"))
            // Answered by the test: a call that waits, as one waiting for a segment load does.
            .get("/held", held::add)
            .get(
                "/error",
                call -> {
                  throw new AssertionError("a route that fails with an Error");
                })
            .prefix(
                "/echo/",
                Set.of("GET"),
                call -> call.respond(HttpResponseStatus.OK, HttpCall.TEXT, call.path()));
    server =
        LeafHttpServer.start(
            "test",
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            HttpConfig.DEFAULTS,
            routes,
            ServerThreads::http,
            flag -> {});
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
    server.close();
  }

  private RawHttpClient raw() throws Exception {
    RawHttpClient c = new RawHttpClient(server.port(), 20_000);
    open.add(c);
    return c;
  }

  /** Sends {@code request} on a fresh connection and reads the one answer. */
  private RawHttpClient.Response once(String request) throws Exception {
    RawHttpClient c = raw();
    c.send(request);
    RawHttpClient.Response r = c.read();
    assertNotNull(r, "an answer to " + request.lines().findFirst().orElse(""));
    return r;
  }

  private static void assertRefused(
      int status, String reasonPart, RawHttpClient.Response r, String what) {
    assertEquals(status, r.status(), what + ": " + r);
    assertTrue(r.head().startsWith("HTTP/1.1 " + status + " "), what + " in HTTP/1.1: " + r);
    assertTrue(r.body().contains(reasonPart), what + " names the cause (" + reasonPart + "): " + r);
    assertTrue(
        r.body().endsWith("\n") && r.body().indexOf('\n') == r.body().length() - 1,
        what + " is one line: " + r);
  }

  @Test
  void versionOtherThan10And11_505InHttp11AndClosed() throws Exception {
    for (String version : List.of("HTTP/2.0", "HTTP/1.7", "HTTP/0.9", "HTTP/3.0")) {
      RawHttpClient c = raw();
      c.send("GET /fast " + version + "\r\nHost: x\r\n\r\n");
      RawHttpClient.Response r = c.read();
      assertNotNull(r, version + " is answered");
      assertRefused(505, version, r, version);
      assertTrue(c.closedByServer(), version + ": closed after the 505");
    }
    assertEquals("fast", once("GET /fast HTTP/1.0\r\n\r\n").body(), "HTTP/1.0 is spoken");
    assertTrue(
        once("GET /fast HTTP/1.0\r\n\r\n").head().startsWith("HTTP/1.0 200"),
        "and answered in 1.0");
  }

  @Test
  void http2Preface_oneRefusalThenClosed() throws Exception {
    RawHttpClient c = raw();
    c.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    RawHttpClient.Response r = c.read();
    assertNotNull(r, "the preface is answered");
    assertRefused(505, "HTTP/2.0", r, "the HTTP/2 preface");
    assertTrue(c.closedByServer(), "one answer, then the close");
  }

  @Test
  void unsupportedExpectation_417WithReason() throws Exception {
    RawHttpClient.Response r =
        once("POST /post HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n" + "Content-Length: 1\r\n\r\nx");
    assertRefused(417, "Expect", r, "Expect: foo");
  }

  @Test
  void continueExpectedWithBodyOverBound_413WithReason() throws Exception {
    RawHttpClient.Response r =
        once(
            "POST /post HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                + "Content-Length: "
                + (HttpConfig.MAX_BODY_BYTES + 1)
                + "\r\n\r\n");
    assertRefused(413, String.valueOf(HttpConfig.MAX_BODY_BYTES), r, "an oversized 100-continue");
  }

  @Test
  void continueExpectedWithinBound_100ThenAnswer() throws Exception {
    RawHttpClient c = raw();
    c.send("POST /post HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
    assertEquals(100, c.read().status(), "go on");
    c.send("abc");
    assertEquals("posted", c.read().body(), "then the answer");
  }

  @Test
  void bodyOverBound_413WithReason() throws Exception {
    RawHttpClient.Response r =
        once(
            "POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: "
                + (HttpConfig.MAX_BODY_BYTES + 1)
                + "\r\n\r\n");
    assertRefused(413, String.valueOf(HttpConfig.MAX_BODY_BYTES), r, "a body over the bound");
  }

  @Test
  void absoluteFormTarget_pathTakenFromTheUri() throws Exception {
    assertEquals(
        "fast",
        once("GET http://example.com/fast HTTP/1.1\r\nHost: example.com\r\n\r\n").body(),
        "absolute form");
    assertEquals(
        "fast",
        once("GET HTTP://example.com:8080/fast?x=1 HTTP/1.1\r\nHost: x\r\n\r\n").body(),
        "scheme in capitals, a port and a query");
    assertEquals(
        "/echo/a", once("GET https://h/echo/a HTTP/1.1\r\nHost: h\r\n\r\n").body(), "https too");
    assertEquals(
        404, once("GET http://h HTTP/1.1\r\nHost: h\r\n\r\n").status(), "no path is the path /");
  }

  @Test
  void rawUtf8InPath_decodedAsUtf8() throws Exception {
    assertEquals(
        "/echo/订单",
        once("GET /echo/订单 HTTP/1.1\r\nHost: x\r\n\r\n").body(),
        "raw UTF-8 in the path");
    assertEquals(
        "/echo/订单",
        once("GET http://x/echo/订单 HTTP/1.1\r\nHost: x\r\n\r\n").body(),
        "and in an absolute-form target");
  }

  @Test
  void invalidUtf8InPath_400NamingIt() throws Exception {
    RawHttpClient c = raw();
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    request.writeBytes("GET /echo/a".getBytes(StandardCharsets.US_ASCII));
    request.write(0xC3); // a lead byte without its continuation
    request.writeBytes("( HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    c.send(request.toByteArray());
    RawHttpClient.Response r = c.read();
    assertNotNull(r, "answered");
    assertRefused(400, "UTF-8", r, "invalid UTF-8 in the path");
    c.send("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n");
    assertEquals("fast", c.read().body(), "the connection stays usable: the framing was sound");
  }

  @Test
  void pipelinedBeyondTheBound_acceptedAnsweredInOrderThenRefusedAndClosed() throws Exception {
    RawHttpClient c = raw();
    int accepted = RequestHandler.MAX_PIPELINED;
    StringBuilder requests = new StringBuilder("GET /held HTTP/1.1\r\nHost: x\r\n\r\n");
    for (int i = 0; i < accepted + 1; i++) {
      requests.append("GET /echo/").append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    c.send(requests.toString());
    HttpCall first = held.poll(20, TimeUnit.SECONDS);
    assertNotNull(first, "the first request is being answered");
    first.respond(HttpResponseStatus.OK, HttpCall.TEXT, "held");
    assertEquals("held", c.read().body(), "the first answer");
    for (int i = 0; i < accepted; i++) {
      RawHttpClient.Response r = c.read();
      assertNotNull(r, "pipelined request " + i + " is answered");
      assertEquals("/echo/" + i, r.body(), "in order");
    }
    RawHttpClient.Response refused = c.read();
    assertNotNull(refused, "the request over the bound is refused, not dropped silently");
    assertRefused(429, String.valueOf(accepted), refused, "one request over the bound");
    assertTrue(c.closedByServer(), "then the connection is closed");
  }

  @Test
  void pipelinedBodiesBeyondTheByteBound_acceptedAnsweredThenRefused() {
    // In memory, so that every byte is read before the first answer, whatever the socket does.
    BlockingQueue<HttpCall> calls = new LinkedBlockingQueue<>();
    HttpRoutes routes = new HttpRoutes().prefix("/", Set.of("GET", "POST"), calls::add);
    EmbeddedChannel ch =
        new EmbeddedChannel(
            new ChannelInitializer<EmbeddedChannel>() {
              @Override
              protected void initChannel(EmbeddedChannel c) {
                LeafHttpServer.configure(c.pipeline(), HttpConfig.DEFAULTS, routes);
              }
            });
    String body = "b".repeat(8000);
    int fit = RequestHandler.MAX_PIPELINED_BYTES / (body.length() + 100);
    StringBuilder requests = new StringBuilder("GET /first HTTP/1.1\r\nHost: x\r\n\r\n");
    for (int i = 0; i < fit + 1; i++) {
      requests
          .append("POST /")
          .append(i)
          .append(" HTTP/1.1\r\nHost: x\r\nContent-Length: ")
          .append(body.length())
          .append("\r\n\r\n")
          .append(body);
    }
    ch.writeInbound(Unpooled.copiedBuffer(requests, StandardCharsets.US_ASCII));
    List<String> answered = new ArrayList<>();
    for (HttpCall call; (call = calls.poll()) != null; ) {
      answered.add(call.path());
      call.respond(HttpResponseStatus.OK, HttpCall.TEXT, call.path());
    }
    List<String> expected = new ArrayList<>(List.of("/first"));
    for (int i = 0; i < fit; i++) {
      expected.add("/" + i);
    }
    assertEquals(expected, answered, "the first and the pipelined ones within the bound, in order");
    StringBuilder out = new StringBuilder();
    for (ByteBuf b; (b = ch.readOutbound()) != null; b.release()) {
      out.append(b.toString(StandardCharsets.UTF_8));
    }
    String last = out.substring(out.lastIndexOf("HTTP/1.1 "));
    assertTrue(last.startsWith("HTTP/1.1 429 "), "then the refusal: " + last);
    assertTrue(last.contains(RequestHandler.MAX_PIPELINED_BYTES + " bytes"), "naming it: " + last);
    assertFalse(ch.isOpen(), "and the close");
  }

  @Test
  void clientHangsUpWhileAnswerPending_callCancelledAtOnce() throws Exception {
    RawHttpClient c = raw();
    c.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n");
    HttpCall call = held.poll(20, TimeUnit.SECONDS);
    assertNotNull(call, "the request is being answered");
    CountDownLatch cancelled = new CountDownLatch(1);
    call.onCancel(cancelled::countDown);
    c.close();
    // No answer ever comes for this call: only the hang-up can run the action.
    assertTrue(cancelled.await(20, TimeUnit.SECONDS), "the hang-up cancels the pending call");
  }

  @Test
  void routeFailsWithAnError_answered500_connectionKeepsServing() throws Exception {
    RawHttpClient c = raw();
    c.send("GET /error HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\n\r\n");
    RawHttpClient.Response failed = c.read();
    assertNotNull(failed, "an answer to the failing route");
    assertRefused(500, "AssertionError", failed, "an Error in a route");
    RawHttpClient.Response next = c.read();
    assertNotNull(next, "the request pipelined behind it is answered");
    assertEquals(200, next.status(), next.toString());
  }
}
