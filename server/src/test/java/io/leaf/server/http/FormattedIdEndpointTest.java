package io.leaf.server.http;

import static io.leaf.server.http.HttpPortClient.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.formats.FormatDefinition;
import io.leaf.server.formats.MemoryFormatStore;
import io.leaf.server.formats.StoredFormat;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.ControllableStore;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.Ports;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code /api/formatted/get/{biz_tag}} on {@code --http-port}: bodies and statuses. */
class FormattedIdEndpointTest {

  private static final String PATH = IdEndpoints.FORMATTED;

  private final MemorySegmentStore memory = new MemorySegmentStore();
  private final ControllableStore store = new ControllableStore(memory);
  private final MemoryFormatStore formats = new MemoryFormatStore();
  private final FakeWallClock wall =
      new FakeWallClock(Instant.parse("2026-11-26T10:00:00Z").toEpochMilli());
  private InProcessLeaf leaf;
  private HttpPortClient http;

  private void start(String... flags) throws Exception {
    int port = Ports.free();
    http = new HttpPortClient(port);
    List<String> all = new ArrayList<>(List.of("--http-port", String.valueOf(port)));
    all.addAll(List.of(flags));
    leaf =
        new InProcessLeaf(
            store,
            Ticker.systemTicker(),
            EngineConfig.DEFAULTS,
            s -> s.formats(formats).wallClock(wall),
            all.toArray(String[]::new));
  }

  @AfterEach
  void stop() throws Exception {
    store.release();
    if (leaf != null) {
      leaf.close();
    }
  }

  /** A tag with {@code pattern} as its first format, written to the stores as SetFormat would. */
  private void formatted(String tag, String pattern, String reset, String fingerprint) {
    memory.createTag(tag, 1, 100, null);
    formats.add(
        new StoredFormat(
            tag, 1, new FormatDefinition(pattern, reset, "UTC"), fingerprint, wall.millis()));
  }

  @Test
  void formatted_tagWithFormat_bodyIsTheValueAloneAsPlainText() throws Exception {
    start();
    formatted("order", "ORD-{yyyyMMdd}-{seq:6}", "DAILY", "");
    HttpResponse<String> first = http.get(PATH + "order");
    assertEquals(200, first.statusCode(), first.body());
    assertEquals("ORD-20261126-000001", first.body(), "the value and nothing else");
    assertTrue(
        first.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"),
        "text/plain");
    assertEquals(
        "no-store", first.headers().firstValue("Cache-Control").orElse(""), "never cached");
    assertEquals("ORD-20261126-000002", http.get(PATH + "order").body(), "the next value");
    HttpResponse<String> post =
        http.send(http.request(PATH + "order").POST(HttpRequest.BodyPublishers.noBody()).build());
    assertEquals("ORD-20261126-000003", post.body(), "POST too, as on the segment path");
    wall.advance(Duration.ofDays(1));
    assertEquals(
        "ORD-20261127-000001",
        http.get(PATH + "order").body(),
        "the next day's period starts again");
  }

  @Test
  void formatted_tagWithoutFormat_409NamingTheTagAndTheFix() throws Exception {
    start();
    memory.createTag("plain", 1, 100, null);
    HttpResponse<String> r = http.get(PATH + "plain");
    assertStatus(409, "has no format", r, "a tag without a format");
    assertTrue(
        r.body().contains("\"plain\"") && r.body().contains("SetFormat"),
        "names the tag and what to do: " + r.body());
    assertEquals(
        "1", http.get(IdEndpoints.SEGMENT + "plain").body(), "its plain IDs are untouched");
  }

  @Test
  void formatted_unknownTag_404_badTag_400_badPath_404() throws Exception {
    start();
    assertStatus(404, "nobody", http.get(PATH + "nobody"), "unknown tag");
    assertStatus(404, "nobody", http.get(PATH + "nobody"), "unknown tag, remembered");
    assertStatus(400, "biz_tag", http.get(PATH + "a%0Ab"), "a control character");
    assertStatus(400, "biz_tag", http.get(PATH + "a".repeat(129)), "129 characters");
    assertStatus(404, "no such path", http.get(PATH), "no key");
    assertStatus(404, "no such path", http.get(PATH + "a/b"), "two segments");
  }

  @Test
  void formatted_widthExhausted_409NamingTagAndWidth_neverALongerValue() throws Exception {
    start();
    formatted("tiny", "T{seq:1}", "NEVER", "");
    Set<String> seen = new HashSet<>();
    HttpResponse<String> refused = null;
    for (int i = 0; i < 12 && refused == null; i++) {
      HttpResponse<String> r = http.get(PATH + "tiny");
      if (r.statusCode() == 200) {
        assertTrue(seen.add(r.body()), "repeated " + r.body());
      } else {
        refused = r;
      }
    }
    assertTrue(refused != null, "no refusal after " + seen);
    assertStatus(409, "width of 1", refused, "the width used up");
    assertTrue(refused.body().contains("\"tiny\""), "names the tag: " + refused.body());
    assertStatus(409, "width of 1", http.get(PATH + "tiny"), "and stays so");
    assertTrue(seen.stream().allMatch(v -> v.matches("T[1-9]")), "never longer: " + seen);
  }

  @Test
  void formatted_opaqueFormatWithoutTheKey_500NamingTheFlag() throws Exception {
    start();
    formatted("secret", "S{seq:6:opaque}", "NEVER", "0123456789abcdef");
    HttpResponse<String> r = http.get(PATH + "secret");
    assertStatus(500, "--format-key-file", r, "this server cannot serve the format");
    assertFalse(r.body().contains("has no format"), "not mistaken for a missing format");
  }

  @Test
  void formatted_clockBehindALaterPeriod_503() throws Exception {
    start();
    formatted("late", "{yyyyMMdd}{seq:5}", "DAILY", "");
    assertEquals("2026112600001", http.get(PATH + "late").body());
    wall.advance(Duration.ofDays(-3));
    assertStatus(
        503, "clock is behind", http.get(PATH + "late"), "a period before an existing one");
  }

  @Test
  void formatted_databaseDownNothingBuffered_503() throws Exception {
    start();
    formatted("down", "D{seq:6}", "NEVER", "");
    store.failLoads();
    assertStatus(503, "", http.get(PATH + "down"), "database down");
  }

  @Test
  void formatted_loadSlowerThanMaxWait_503() throws Exception {
    start("--max-wait", "300ms");
    formatted("slow", "S{seq:6}", "NEVER", "");
    store.blockLoads();
    assertStatus(503, "", http.get(PATH + "slow"), "the server's --max-wait");
  }

  @Test
  void formatted_clientToken_missing401WrongDeniedRightServed() throws Exception {
    start("--admin-token", "admin-secret", "--client-token", "client-secret");
    formatted("guarded", "G{seq:4}", "NEVER", "");
    HttpResponse<String> missing = http.get(PATH + "guarded");
    assertStatus(401, "Authorization: Bearer", missing, "no token");
    assertEquals(
        "Bearer",
        missing.headers().firstValue("WWW-Authenticate").orElse(""),
        "401 says which scheme");
    HttpResponse<String> wrong = http.get(PATH + "guarded", "Bearer nope");
    assertStatus(403, "does not grant", wrong, "a wrong token");
    assertFalse(wrong.body().contains("secret"), "no token in the answer");
    assertStatus(
        401,
        "Authorization",
        http.get(PATH + "nobody"),
        "the token comes before the tag is looked up");
    assertEquals(
        "G0001", http.get(PATH + "guarded", "Bearer client-secret").body(), "client token");
    assertEquals("G0002", http.get(PATH + "guarded", "Bearer admin-secret").body(), "admin token");
  }

  @Test
  void formatted_clientHangsUpWhileWaiting_waitSlotFreedAtOnce() throws Exception {
    // An hour: only the hang-up can free the slot within the test.
    start("--max-wait", "1h");
    formatted("hang", "H{seq:6}", "NEVER", "");
    store.blockLoads();
    try (RawHttpClient raw = new RawHttpClient(http.port(), 20_000)) {
      raw.send("GET " + PATH + "hang HTTP/1.1\r\nHost: x\r\n\r\n");
      assertTrue(awaitWaitingCalls(1), "the call waits for the period row's load");
    }
    assertTrue(
        awaitWaitingCalls(0),
        "the client hung up: its wait slot is freed, "
            + leaf.allocator.waitingCalls()
            + " still waiting");
    store.release();
    assertEquals("H000001", http.get(PATH + "hang").body(), "the tag serves on afterwards");
  }

  /** Waits (test thread only) until {@code n} calls wait for a segment; false if they never do. */
  private boolean awaitWaitingCalls(int n) throws InterruptedException {
    return Poll.until(() -> leaf.allocator.waitingCalls() == n, Duration.ofSeconds(20));
  }
}
