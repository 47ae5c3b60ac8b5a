package io.leaf.server.http;

import static io.leaf.server.http.HttpPortClient.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.leaf.server.request.TagNames;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.Ports;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Meituan Leaf's HTTP endpoints on {@code --http-port}: bodies and statuses. */
class IdEndpointsTest {

  private final MemorySegmentStore memory = new MemorySegmentStore();
  private final ControllableStore store = new ControllableStore(memory);
  private InProcessLeaf leaf;
  private HttpPortClient http;

  private void start(String... flags) throws Exception {
    int port = Ports.free();
    http = new HttpPortClient(port);
    List<String> all = new ArrayList<>(List.of("--http-port", String.valueOf(port)));
    all.addAll(List.of(flags));
    leaf = new InProcessLeaf(store, all.toArray(String[]::new));
  }

  @AfterEach
  void stop() throws Exception {
    store.release();
    if (leaf != null) {
      leaf.close();
    }
  }

  @Test
  void segment_existingTag_bodyIsTheIdAloneAsPlainText() throws Exception {
    start();
    memory.createTag("order", 1, 100, null);
    HttpResponse<String> first = http.get("/api/segment/get/order");
    assertEquals(200, first.statusCode(), "an existing tag: " + first.body());
    assertEquals("1", first.body(), "the body is the ID and nothing else, as Meituan Leaf's");
    assertTrue(
        first.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"),
        "text/plain");
    assertEquals("2", http.get("/api/segment/get/order").body(), "the next ID");
    HttpResponse<String> post =
        http.send(
            http.request("/api/segment/get/order")
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
    assertEquals("3", post.body(), "POST works too, as with Meituan's @RequestMapping");
  }

  @Test
  void segment_manyConcurrentCallsAcrossSegments_noIdRepeated() throws Exception {
    start();
    memory.createTag("many", 1, 7, null);
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      calls.add(http.sendAsync(http.request("/api/segment/get/many").build()));
    }
    java.util.Set<Long> ids = new java.util.HashSet<>();
    for (CompletableFuture<HttpResponse<String>> c : calls) {
      HttpResponse<String> r = c.get(60, TimeUnit.SECONDS);
      assertEquals(200, r.statusCode(), r.body());
      assertTrue(ids.add(Long.parseLong(r.body())), "ID " + r.body() + " repeated");
    }
    assertEquals(200, ids.size(), "200 distinct IDs over segments of 7");
  }

  @Test
  void segment_unknownTag_404() throws Exception {
    start();
    assertStatus(404, "nobody", http.get("/api/segment/get/nobody"), "unknown tag");
  }

  @Test
  void segment_badTags_400AndBadPaths_404() throws Exception {
    start();
    assertStatus(400, "biz_tag", http.get("/api/segment/get/" + "a".repeat(129)), "129 characters");
    assertStatus(400, "biz_tag", http.get("/api/segment/get/a%0Ab"), "a control character");
    try (RawHttpClient raw = new RawHttpClient(http.port(), 20_000)) {
      raw.send("GET /api/segment/get/a%ZZ HTTP/1.1\r\nHost: x\r\n\r\n");
      RawHttpClient.Response r = raw.read();
      assertEquals(400, r.status(), "a malformed escape: " + r);
      assertTrue(r.body().contains("malformed %-escape"), "says so: " + r);
    }
    assertStatus(400, "UTF-8", http.get("/api/segment/get/%C3%28"), "invalid UTF-8");
    assertStatus(404, "no such path", http.get("/api/segment/get/"), "no key");
    assertStatus(404, "no such path", http.get("/api/segment/get/a/b"), "two segments");
    HttpResponse<String> put =
        http.send(
            http.request("/api/segment/get/x").PUT(HttpRequest.BodyPublishers.noBody()).build());
    assertEquals(405, put.statusCode(), "PUT: " + put.body());
  }

  @Test
  void segment_tagWithSlashPercentEncoded_decodedAsOneTag() throws Exception {
    start();
    // Decoded into one tag, whatever the tag rule then says of the slash.
    HttpResponse<String> r = http.get("/api/segment/get/pay%2Frefund");
    assertTrue(r.body().contains("pay/refund"), "decoded to pay/refund: " + r.body());
  }

  @Test
  void segment_meituanTagsPercentEncoded_served() throws Exception {
    assumeTrue(
        TagNames.problem("订单") == null,
        "SKIPPED: the tag rule of this build refuses tags outside [A-Za-z0-9_.:-]");
    start();
    for (String tag : List.of("订单", "a b", "pay/refund")) {
      memory.createTag(tag, 1, 100, null);
      HttpResponse<String> r =
          http.get(
              "/api/segment/get/"
                  + URLEncoder.encode(tag, StandardCharsets.UTF_8).replace("+", "%20"));
      assertEquals(200, r.statusCode(), tag + ": " + r.body());
      assertEquals("1", r.body(), tag + "'s first ID");
    }
  }

  @Test
  void segment_clientToken_missing401WrongDeniedRightServed() throws Exception {
    start("--admin-token", "admin-secret", "--client-token", "client-secret");
    memory.createTag("guarded", 1, 100, null);
    HttpResponse<String> missing = http.get("/api/segment/get/guarded");
    assertStatus(401, "Authorization: Bearer", missing, "no token");
    assertEquals(
        "Bearer",
        missing.headers().firstValue("WWW-Authenticate").orElse(""),
        "401 says which scheme");
    HttpResponse<String> wrong = http.get("/api/segment/get/guarded", "Bearer nope");
    assertStatus(403, "does not grant", wrong, "a wrong token");
    assertFalse(wrong.body().contains("secret"), "no token in the answer");
    assertEquals(
        "1",
        http.get("/api/segment/get/guarded", "Bearer client-secret").body(),
        "the client token");
    assertEquals(
        "2", http.get("/api/segment/get/guarded", "Bearer admin-secret").body(), "the admin token");
    assertStatus(401, "Authorization", http.get("/api/snowflake/get/x"), "snowflake needs it too");
  }

  @Test
  void segment_adminTokenOnly_idCallsOpen() throws Exception {
    start("--admin-token", "admin-secret");
    memory.createTag("open", 1, 100, null);
    assertEquals(
        "1", http.get("/api/segment/get/open").body(), "no client token: ID calls are open");
  }

  @Test
  void segment_maxWaitingReached_429NamingLimit() throws Exception {
    start("--max-waiting", "1");
    memory.createTag("t", 1, 100, null);
    store.blockLoads();
    CompletableFuture<HttpResponse<String>> waiting =
        http.sendAsync(http.request("/api/segment/get/t").build());
    Poll.until(() -> leaf.allocator.waitingCalls() >= 1, Duration.ofSeconds(20));
    assertStatus(
        429, "--max-waiting", http.get("/api/segment/get/t"), "one call over --max-waiting");
    store.release();
    assertEquals("1", waiting.get(30, TimeUnit.SECONDS).body(), "the waiting call is answered");
  }

  @Test
  void segment_databaseDownNothingBuffered_503() throws Exception {
    start();
    memory.createTag("t", 1, 100, null);
    store.failLoads();
    assertStatus(503, "", http.get("/api/segment/get/t"), "database down");
  }

  /** Waits (test thread only) until {@code n} calls wait for a segment; false if they never do. */
  private boolean awaitWaitingCalls(int n) throws InterruptedException {
    return Poll.until(() -> leaf.allocator.waitingCalls() == n, Duration.ofSeconds(20));
  }

  @Test
  void segment_clientHangsUpWhileWaiting_waitSlotFreedAtOnce() throws Exception {
    // An hour: only the hang-up can free the slot within the test.
    start("--max-wait", "1h");
    memory.createTag("t", 1, 100, null);
    store.blockLoads();
    try (RawHttpClient raw = new RawHttpClient(http.port(), 20_000)) {
      raw.send("GET /api/segment/get/t HTTP/1.1\r\nHost: x\r\n\r\n");
      assertTrue(awaitWaitingCalls(1), "the call waits for the load");
    }
    assertTrue(
        awaitWaitingCalls(0),
        "the client hung up: its wait slot is freed, "
            + leaf.allocator.waitingCalls()
            + " still waiting");
  }

  @Test
  void segment_waitingCallThen17Pipelined_answeredInOrderThenRefused() throws Exception {
    start("--max-wait", "1h");
    memory.createTag("t", 1, 100, null);
    store.blockLoads();
    try (RawHttpClient raw = new RawHttpClient(http.port(), 20_000)) {
      StringBuilder requests = new StringBuilder();
      for (int i = 0; i < 1 + RequestHandler.MAX_PIPELINED + 1; i++) {
        requests.append("GET /api/segment/get/t HTTP/1.1\r\nHost: x\r\n\r\n");
      }
      raw.send(requests.toString());
      assertTrue(awaitWaitingCalls(1), "the first call waits for the load");
      store.release();
      for (int i = 1; i <= 1 + RequestHandler.MAX_PIPELINED; i++) {
        RawHttpClient.Response r = raw.read();
        assertEquals(200, r == null ? -1 : r.status(), "request " + i + " answered: " + r);
        assertEquals(String.valueOf(i), r.body(), "in order");
      }
      RawHttpClient.Response refused = raw.read();
      assertEquals(
          429,
          refused == null ? -1 : refused.status(),
          "the one over the bound is refused with a status: " + refused);
      assertTrue(raw.closedByServer(), "then closed");
    }
  }

  @Test
  void segment_rawUtf8Tag_servedOr404NamingIt() throws Exception {
    assumeTrue(
        TagNames.problem("订单") == null,
        "SKIPPED: the tag rule of this build refuses tags outside [A-Za-z0-9_.:-]");
    start();
    memory.createTag("订单", 1, 100, null);
    try (RawHttpClient raw = new RawHttpClient(http.port(), 20_000)) {
      raw.send("GET /api/segment/get/订单 HTTP/1.1\r\nHost: x\r\n\r\n");
      RawHttpClient.Response r = raw.read();
      assertEquals("1", r.body(), "the tag 订单 sent as raw UTF-8: " + r);
      raw.send("GET /api/segment/get/订单x HTTP/1.1\r\nHost: x\r\n\r\n");
      r = raw.read();
      assertEquals(404, r.status(), "an unknown one: " + r);
      assertTrue(r.body().contains("订单x"), "named as sent: " + r);
      raw.send(
          new byte[] {
            'G',
            'E',
            'T',
            ' ',
            '/',
            'a',
            'p',
            'i',
            '/',
            's',
            'e',
            'g',
            'm',
            'e',
            'n',
            't',
            '/',
            'g',
            'e',
            't',
            '/',
            (byte) 0xE8,
            (byte) 0xAE,
            ' ',
            'H',
            'T',
            'T',
            'P',
            '/',
            '1',
            '.',
            '1',
            '\r',
            '\n',
            '\r',
            '\n'
          });
      r = raw.read();
      assertEquals(400, r.status(), "a truncated UTF-8 sequence: " + r);
      assertTrue(r.body().contains("UTF-8"), "says so: " + r);
    }
  }

  @Test
  void snowflake_idsAsTheWholeBody_increasing() throws Exception {
    start("--worker-lease-ttl", "1s"); // a claim is held back for the TTL plus 1 s
    // The worker lease is claimed in the background at start: 503 until then.
    HttpResponse<String> first =
        Poll.retry(
            () -> {
              HttpResponse<String> got = http.get("/api/snowflake/get/anything");
              if (got.statusCode() == 503) {
                throw new IllegalStateException("still 503: " + got.body());
              }
              return got;
            },
            e -> e instanceof IllegalStateException,
            Duration.ofSeconds(20));
    assertEquals(200, first.statusCode(), first.body());
    long a = Long.parseLong(first.body());
    long b = Long.parseLong(http.get("/api/snowflake/get/other").body());
    assertTrue(a > 0 && b > a, "time-ordered positive IDs: " + a + ", " + b);
  }
}
