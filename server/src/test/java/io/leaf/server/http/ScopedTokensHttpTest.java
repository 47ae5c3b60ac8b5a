package io.leaf.server.http;

import static io.leaf.server.testing.TokenFiles.line;
import static io.leaf.server.testing.TokenFiles.secret;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.leaf.client.BearerToken;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.formats.MemoryFormatStore;
import io.leaf.server.security.TokenAccess;
import io.leaf.server.security.TokenMeters;
import io.leaf.server.security.TokensFile;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.Ports;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.IdFormat;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.Reset;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tokens of a token file on the HTTP port: the ID routes' scope and rate, the monitor's view. */
class ScopedTokensHttpTest {

  @TempDir Path dir;
  private final FakeTicker ticker = new FakeTicker();
  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(20))
          .build();
  private TokensFile tokens;
  private InProcessLeaf leaf;
  private int port;

  @BeforeEach
  void start() throws Exception {
    Path file = dir.resolve("tokens");
    Files.writeString(
        file,
        line("orders", "issue", "orders.*", null)
            + line("ops", "admin", "*", null)
            + line("slow", "issue", "slow", "2/s")
            + line("invoices", "issue", "invoice", null));
    tokens = new TokensFile(file, ticker, TokenMeters.NONE, null, null);
    MemorySegmentStore store = new MemorySegmentStore();
    for (String tag : List.of("orders.eu", "billing", "slow")) {
      store.createTag(tag, 1, 100, "");
    }
    port = Ports.free();
    TokenAccess access = new TokenAccess(tokens);
    leaf =
        new InProcessLeaf(
            store,
            Ticker.systemTicker(),
            EngineConfig.DEFAULTS,
            b -> {
              b.access(access);
              b.formats(new MemoryFormatStore());
            },
            "--http-port",
            String.valueOf(port));
  }

  @AfterEach
  void stop() throws Exception {
    leaf.close();
    tokens.close();
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30));
    if (token != null) {
      request.header("Authorization", "Bearer " + secret(token));
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void segment_scope_prefixServedOtherTag403NamingIt() throws Exception {
    assertEquals("1", get("/api/segment/get/orders.eu", "orders").body());
    HttpResponse<String> other = get("/api/segment/get/billing", "orders");
    assertEquals(403, other.statusCode(), other.body());
    assertTrue(other.body().contains("tag 'billing'"), other.body());
    assertEquals(401, get("/api/segment/get/orders.eu", null).statusCode());
    assertEquals("1", get("/api/segment/get/billing", "ops").body(), "nothing was taken");
  }

  @Test
  void segment_overRate_429WithRetryAfterOthersServed() throws Exception {
    assertEquals("1", get("/api/segment/get/slow", "slow").body());
    assertEquals("2", get("/api/segment/get/slow", "slow").body());
    HttpResponse<String> over = get("/api/segment/get/slow", "slow");
    assertEquals(429, over.statusCode(), over.body());
    assertTrue(over.body().contains("token 'slow' is limited to 2 IDs/s"), over.body());
    assertEquals("1", over.headers().firstValue("Retry-After").orElse(""), "500 ms: 1 s");
    assertEquals("1", get("/api/segment/get/orders.eu", "orders").body(), "another token");
    ticker.advance(Duration.ofMillis(500));
    assertEquals("3", get("/api/segment/get/slow", "slow").body());
  }

  @Test
  void monitor_scopedToken_onlyItsTags() throws Exception {
    for (String tag : List.of("orders.eu", "billing")) {
      leaf.blocking
          .withCallCredentials(new BearerToken(secret("ops")))
          .nextId(NextIdRequest.newBuilder().setBizTag(tag).build());
    }
    for (String path : List.of("/", MonitorPage.JSON_PATH)) {
      HttpResponse<String> orders = get(path, "orders");
      assertEquals(200, orders.statusCode(), orders.body());
      assertTrue(orders.body().contains("orders.eu"), path + ": " + orders.body());
      assertFalse(orders.body().contains("billing"), path + " hides other tags");
      HttpResponse<String> ops = get(path, "ops");
      assertTrue(ops.body().contains("orders.eu") && ops.body().contains("billing"), path);
      assertEquals(401, get(path, null).statusCode());
    }
    assertTrue(
        get(MonitorPage.JSON_PATH, "orders").body().contains("\"cachedTags\":1,"),
        "the count is of the tags it sees");
  }

  @Test
  void monitor_scopedTokenOfFormattedTag_seesItAndItsPeriodRow() throws Exception {
    BearerToken ops = new BearerToken(secret("ops"));
    leaf.blocking
        .withCallCredentials(ops)
        .createTag(
            CreateTagRequest.newBuilder()
                .setBizTag("invoice")
                .setFormat(
                    IdFormat.newBuilder()
                        .setPattern("INV-{yyyyMMdd}-{seq:6}")
                        .setReset(Reset.DAILY)
                        .setTimeZone("UTC"))
                .build());
    leaf.blocking
        .withCallCredentials(new BearerToken(secret("invoices")))
        .nextFormattedId(NextIdRequest.newBuilder().setBizTag("invoice").build());
    leaf.blocking
        .withCallCredentials(ops)
        .nextId(NextIdRequest.newBuilder().setBizTag("billing").build());
    String json = get(MonitorPage.JSON_PATH, "invoices").body();
    assertTrue(
        json.matches("(?s).*\"tag\":\"invoice#\\d{8}\".*"), "the token's own period row: " + json);
    assertTrue(
        json.contains("\"formatted\":[{\"tag\":\"invoice\",\"pattern\":"),
        "the token's own formatted tag: " + json);
    assertTrue(json.contains("\"cachedTags\":1,"), "its period row counted: " + json);
    assertFalse(json.contains("billing"), "other tags stay hidden: " + json);
    String page = get("/", "invoices").body();
    assertTrue(page.contains("<td class=\"tag\">invoice</td>"), "on the page too: " + page);
    assertFalse(
        get(MonitorPage.JSON_PATH, "orders").body().contains("invoice"),
        "another token's scope does not see it");
  }
}
