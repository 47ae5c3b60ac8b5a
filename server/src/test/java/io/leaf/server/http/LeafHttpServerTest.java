package io.leaf.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.config.HttpConfig;
import io.leaf.server.testing.Pace;
import io.leaf.server.testing.Poll;
import io.leaf.server.threads.ServerThreads;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HTTP server's bounds against slow, stalled, numerous and pipelining clients. */
class LeafHttpServerTest {

  private static final String HALF_REQUEST = "GET /metrics HTTP/1.1\r\nHost: x\r\n";

  /** An answer of 1 MiB: the most pipelined ones hold far more than any socket buffer does. */
  private static final byte[] LARGE = new byte[1 << 20];

  private final List<String> refusals = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
  private final List<AutoCloseable> open = new ArrayList<>();
  private LeafHttpServer server;

  private LeafHttpServer start(HttpConfig config) {
    HttpRoutes routes =
        new HttpRoutes()
            .get("/metrics", call -> call.respond(HttpResponseStatus.OK, HttpCall.TEXT, "scraped"))
            .get("/fast", call -> call.respond(HttpResponseStatus.OK, HttpCall.TEXT, "fast"))
            .get("/large", call -> call.respond(HttpResponseStatus.OK, HttpCall.TEXT, LARGE))
            // Answered from another thread, later: as an ID that waited for a segment is.
            .get(
                "/slow",
                call ->
                    later.schedule(
                        () -> call.respond(HttpResponseStatus.OK, HttpCall.TEXT, "slow"),
                        200,
                        TimeUnit.MILLISECONDS));
    server =
        LeafHttpServer.start(
            "test",
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            config,
            routes,
            ServerThreads::http,
            refusals::add);
    return server;
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
    if (server != null) {
      server.close();
    }
    later.shutdownNow();
  }

  private RawHttpClient raw() throws Exception {
    RawHttpClient c = new RawHttpClient(server.port(), 20_000);
    open.add(c);
    return c;
  }

  private HttpResponse<String> get(String path) throws Exception {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(20))
        .build()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(20))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void scrape_whileClientsStallHalfwayThroughRequests_otherScrapesAnswered() throws Exception {
    start(HttpConfig.DEFAULTS);
    // More stalled clients than event-loop threads: none of them may hold a thread.
    for (int i = 0; i < 4 * LeafHttpServer.WORKERS; i++) {
      raw().send(HALF_REQUEST);
    }
    for (int i = 0; i < 5; i++) {
      HttpResponse<String> response = get("/metrics");
      assertEquals(200, response.statusCode(), "scrape " + i + " while clients stall");
      assertEquals("scraped", response.body(), "scrape " + i + "'s body");
    }
  }

  @Test
  void halfSentRequest_pastReadTimeout_408AndClosed() throws Exception {
    start(new HttpConfig(0, 100, Duration.ofMillis(300), Duration.ofSeconds(60)));
    RawHttpClient stalled = raw();
    stalled.send(HALF_REQUEST);
    RawHttpClient.Response response = stalled.read();
    assertNotNull(response, "an answer before the connection closes");
    assertEquals(408, response.status(), "a request that never arrives whole: " + response);
    assertTrue(response.body().contains("--http-read-timeout"), "names the flag: " + response);
    assertTrue(stalled.closedByServer(), "the connection is closed after the 408");
  }

  @Test
  void slowlyTrickledRequest_pastReadTimeout_408() throws Exception {
    start(new HttpConfig(0, 100, Duration.ofMillis(500), Duration.ofSeconds(60)));
    RawHttpClient slow = raw();
    // A byte every 100 ms keeps any per-read idle check happy; the request's clock does not reset.
    RawHttpClient.Response response = null;
    try {
      for (char c : "GET /metrics HTTP/1.1\r\nHost: xxxxxxxxxxxxxxxxxxxxxx".toCharArray()) {
        slow.send(String.valueOf(c));
        Pace.holdMillis(100); // deliberate: the trickle itself, one byte every 100 ms
      }
    } catch (java.io.IOException closed) {
      // The server closed the connection while the client was still trickling: expected.
    }
    response = slow.read();
    assertNotNull(response, "a 408 before the close");
    assertEquals(408, response.status(), "the request's whole arrival is timed: " + response);
  }

  @Test
  void connectionWithoutRequest_pastIdleTimeout_closed() throws Exception {
    start(new HttpConfig(0, 100, Duration.ofSeconds(10), Duration.ofMillis(300)));
    RawHttpClient idle = raw();
    assertTrue(idle.closedByServer(), "an idle connection is closed");
    RawHttpClient kept = raw();
    kept.send("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n");
    assertEquals("fast", kept.read().body(), "answered");
    assertTrue(kept.closedByServer(), "closed once idle after its answer");
  }

  @Test
  void oneConnectionOverTheLimit_refused429NamingFlagAndCounted() throws Exception {
    start(new HttpConfig(0, 2, Duration.ofSeconds(10), Duration.ofSeconds(60)));
    RawHttpClient first = raw();
    raw();
    Poll.until(() -> server.openConnections() >= 2, Duration.ofSeconds(20));
    assertEquals(2, server.openConnections(), "both connections accepted");
    RawHttpClient third = raw();
    RawHttpClient.Response refused = third.read();
    assertNotNull(refused, "the refused connection is answered");
    assertEquals(429, refused.status(), "one connection over the limit: " + refused);
    assertTrue(
        refused.body().contains("limit 2") && refused.body().contains("--http-max-connections"),
        "names the limit and its flag: " + refused);
    assertTrue(third.closedByServer(), "and closed");
    assertEquals(List.of("--http-max-connections"), refusals, "the refusal is counted once");

    first.close();
    Poll.until(() -> server.openConnections() <= 1, Duration.ofSeconds(20));
    assertEquals(200, get("/fast").statusCode(), "a freed slot serves a new connection");
  }

  @Test
  void clientsPipelineAndNeverRead_slotsFreedAfterIdleTimeout_newClientServed() throws Exception {
    start(new HttpConfig(0, 2, Duration.ofSeconds(10), Duration.ofSeconds(1)));
    // As many requests as a connection takes (one answered, the rest queued): 17 MiB of answers
    // against a receive buffer of a few KiB that is never read.
    String requests =
        "GET /large HTTP/1.1\r\nHost: x\r\n\r\n".repeat(RequestHandler.MAX_PIPELINED + 1);
    for (int i = 0; i < 2; i++) {
      RawHttpClient stalled = new RawHttpClient(server.port(), 20_000, 1024);
      open.add(stalled);
      stalled.send(requests);
    }
    assertTrue(
        Poll.until(() -> server.openConnections() == 2, Duration.ofSeconds(20)),
        "both clients hold a slot");

    assertTrue(
        Poll.until(() -> server.openConnections() == 0, Duration.ofSeconds(20)),
        "an answer not written within --http-idle-timeout closes its connection; open: "
            + server.openConnections());
    HttpResponse<String> served = get("/fast");
    assertEquals(
        200, served.statusCode(), "a new client is served in a freed slot: " + served.body());
    assertEquals(List.of(), refusals, "no connection was refused");
  }

  @Test
  void pipelinedRequests_slowThenFast_answeredInOrderOnOneConnection() throws Exception {
    start(HttpConfig.DEFAULTS);
    RawHttpClient c = raw();
    c.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\n\r\n");
    assertEquals("slow", c.read().body(), "the first request's answer comes first");
    assertEquals("fast", c.read().body(), "then the second's, on the same connection");
    c.send("GET /fast HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    RawHttpClient.Response last = c.read();
    assertTrue(last.head().toLowerCase().contains("connection: close"), "close honoured: " + last);
    assertTrue(c.closedByServer(), "the server closes after Connection: close");
  }

  @Test
  void badRequests_answeredWithTheirStatus() throws Exception {
    start(HttpConfig.DEFAULTS);
    assertEquals(404, get("/nothing").statusCode(), "unknown path");
    HttpResponse<String> post =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .build()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/metrics"))
                    .POST(HttpRequest.BodyPublishers.ofString("x"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(405, post.statusCode(), "POST /metrics");
    assertEquals("GET", post.headers().firstValue("Allow").orElse(""), "Allow names GET");

    RawHttpClient big = raw();
    big.send(
        "GET /fast HTTP/1.1\r\nHost: x\r\nX-Big: "
            + "a".repeat(HttpConfig.MAX_HEADER_BYTES)
            + "\r\n\r\n");
    assertEquals(431, big.read().status(), "headers over the bound");

    RawHttpClient longLine = raw();
    longLine.send("GET /" + "a".repeat(HttpConfig.MAX_LINE_BYTES) + " HTTP/1.1\r\n\r\n");
    assertEquals(414, longLine.read().status(), "request line over the bound");

    RawHttpClient body = raw();
    body.send(
        "POST /fast HTTP/1.1\r\nHost: x\r\nContent-Length: "
            + (HttpConfig.MAX_BODY_BYTES + 1)
            + "\r\n\r\n");
    assertEquals(413, body.read().status(), "a body over the bound");

    RawHttpClient garbage = raw();
    garbage.send("\u0001\u0002 nonsense\r\n\r\n");
    RawHttpClient.Response bad = garbage.read();
    assertNotNull(bad, "garbage is answered");
    assertEquals(400, bad.status(), "garbage: " + bad);
  }
}
