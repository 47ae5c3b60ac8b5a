package io.leaf.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.v1.NextIdRequest;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The monitor page and its JSON: content, escaping, and what a served tag shows. */
class MonitorPageTest {

  private static final String EVIL = "<script>alert(1)</script>\"'&";

  private InProcessLeaf leaf;

  @AfterEach
  void stop() throws Exception {
    if (leaf != null) {
      leaf.close();
    }
  }

  private static MonitorData.Snapshot snapshotWith(String tag) {
    return new MonitorData.Snapshot(false, 1, List.of(new MonitorData.TagRow(tag,
        new MonitorData.Segment(1, 201, 51), null, 200, 12.5, 3.25, 0.5)),
        List.of(new MonitorData.LimitRow("--max-waiting", 10000, 3L, 7)),
        List.of(Map.entry("lease", EVIL)), 10);
  }

  @Test
  void html_tagAndLeaseWithMarkup_escapedAndInert() {
    String html = MonitorPage.html(snapshotWith(EVIL));
    assertFalse(html.contains("<script>alert(1)"), "no markup from data reaches the page");
    assertTrue(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"),
        "the tag is shown as text");
    assertTrue(html.contains("51 in [1, 201) · 25.0% used"), "the segment and how full");
    assertTrue(html.contains(">down<"), "the database state");
    assertTrue(html.contains("<td>--max-waiting</td><td>10000</td><td>3</td><td>7</td>"),
        "a limit, its use and its refusals");
  }

  @Test
  void json_tagWithMarkup_escapedForScriptAndJson() {
    String json = MonitorPage.json(snapshotWith(EVIL));
    assertFalse(json.contains("<"), "no raw < in the JSON: " + json);
    assertTrue(json.contains("\"tag\":\"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\\\"'"
        + "\\u0026\""), "escaped tag: " + json);
    assertTrue(json.contains("\"current\":{\"start\":1,\"end\":201,\"cursor\":51,"
        + "\"usedPercent\":25.00}"), json);
    assertTrue(json.contains("\"databaseUp\":false"), json);
  }

  @Test
  void page_servedTagAfterNextId_showsTagAndCursor() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    MemorySegmentStore store = new MemorySegmentStore();
    store.createTag("shown", 1, 100, null);
    leaf = new InProcessLeaf(store, "--http-port", String.valueOf(port));
    for (int i = 0; i < 5; i++) {
      leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag("shown").build());
    }
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpResponse<String> page = client.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port + "/")).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, page.statusCode(), page.body());
    assertTrue(page.headers().firstValue("Content-Type").orElse("").startsWith("text/html"),
        "HTML");
    assertTrue(page.headers().firstValue("Content-Security-Policy").orElse("")
        .contains("default-src 'none'"), "a strict CSP");
    assertTrue(page.body().contains("<td class=\"tag\">shown</td>"), "the served tag");
    assertTrue(page.body().contains("6 in [1, 101)"), "the cursor after five IDs: " + page.body());
    HttpResponse<String> json = client.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port + MonitorPage.JSON_PATH))
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, json.statusCode(), json.body());
    assertTrue(json.body().contains("\"tag\":\"shown\",\"current\":{\"start\":1,\"end\":101,"
        + "\"cursor\":6"), json.body());
    assertTrue(json.body().contains("\"flag\":\"--max-waiting\",\"limit\":10000,\"inUse\":0"),
        json.body());
    assertTrue(json.body().contains("\"flag\":\"--max-stream-memory\",\"limit\":"
        + leaf.server.service().streamMemoryBytes() + ",\"inUse\":0"), json.body());
  }
}
