package io.leaf.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.Ports;
import io.leaf.v1.NextIdRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
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
    return new MonitorData.Snapshot(
        new MonitorData.ServerState(false, 1, 10),
        List.of(
            new MonitorData.TagRow(
                tag,
                new MonitorData.Segments(new MonitorData.Segment(1, 201, 51), null, 200),
                new MonitorData.Activity(12.5, 3.25, 0.5),
                null,
                "STRICT, owner 10.0.0.7:50051 (this server)")),
        List.of(),
        List.of(new MonitorData.LimitRow("--max-waiting", 10000, 3L, 7)),
        List.of(Map.entry("lease", EVIL)));
  }

  @Test
  void html_tagAndLeaseWithMarkup_escapedAndInert() {
    String html = MonitorPage.html(snapshotWith(EVIL));
    assertFalse(html.contains("<script>alert(1)"), "no markup from data reaches the page");
    assertTrue(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"),
        "the tag is shown as text");
    assertTrue(html.contains("51 in [1, 201) · 25.0% used"), "the segment and how full");
    assertTrue(html.contains(">down<"), "the database state");
    assertTrue(
        html.contains("<td>STRICT, owner 10.0.0.7:50051 (this server)</td>"),
        "a strict tag's owner");
    assertTrue(
        html.contains("<td>--max-waiting</td><td>10000</td><td>3</td><td>7</td>"),
        "a limit, its use and its refusals");
  }

  @Test
  void html_tagWithBidiAndFormatControls_shownAsCodesNotApplied() {
    String html = MonitorPage.html(snapshotWith("invoice\u202Efdp.exe\u2066x\u200Dy"));
    assertTrue(html.contains("invoice[U+202E]fdp.exe[U+2066]x[U+200D]y"), "shown, not applied");
    for (char c : new char[] {'\u202E', '\u2066', '\u200D'}) {
      assertFalse(html.indexOf(c) >= 0, "no U+" + Integer.toHexString(c) + " reaches the page");
    }
  }

  @Test
  void html_script_codesFormatControlsAsTheServerDoes() {
    // The refresh fills the table from JSON, which keeps the tag exact: the script must show it
    // the same way.
    String script = between(MonitorPage.html(snapshotWith("t")), "<script>", "</script>");
    assertTrue(script.contains("\\p{Cf}"), "the script replaces format controls");
    assertTrue(script.contains("[U+"), "with the same visible code");
  }

  @Test
  void csp_noUnsafeInline_onlyThePagesOwnScriptAndStyleByHash() throws Exception {
    String html = MonitorPage.html(snapshotWith("t"));
    String csp = MonitorPage.CSP;
    assertFalse(csp.contains("unsafe-inline"), "strict: " + csp);
    assertTrue(csp.contains("default-src 'none'"), csp);
    String script = between(html, "<script>", "</script>");
    String style = between(html, "<style>", "</style>");
    assertTrue(
        csp.contains("script-src 'sha256-" + sha256(script) + "'"),
        "the page's script, by its hash: " + csp);
    assertTrue(
        csp.contains("style-src 'sha256-" + sha256(style) + "'"),
        "the page's style, by its hash: " + csp);
    assertEquals(1, html.split("<script", -1).length - 1, "one script element");
    assertFalse(
        Pattern.compile("<[^>]*\\s(style|on[a-z]+)=").matcher(html).find(),
        "no inline style or handler attribute, which a hash cannot allow");
  }

  private static String between(String s, String open, String close) {
    int start = s.indexOf(open) + open.length();
    return s.substring(start, s.indexOf(close, start));
  }

  private static String sha256(String text) throws Exception {
    return Base64.getEncoder()
        .encodeToString(
            MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void json_tagWithMarkup_escapedForScriptAndJson() {
    String json = MonitorJson.of(snapshotWith(EVIL));
    assertFalse(json.contains("<"), "no raw < in the JSON: " + json);
    assertTrue(
        json.contains(
            "\"tag\":\"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\\\"'" + "\\u0026\""),
        "escaped tag: " + json);
    assertTrue(
        json.contains(
            "\"current\":{\"start\":1,\"end\":201,\"cursor\":51," + "\"usedPercent\":25.00}"),
        json);
    assertTrue(json.contains("\"databaseUp\":false"), json);
  }

  @Test
  void page_servedTagAfterNextId_showsTagAndCursor() throws Exception {
    int port = Ports.free();
    MemorySegmentStore store = new MemorySegmentStore();
    store.createTag("shown", 1, 100, null);
    leaf = new InProcessLeaf(store, "--http-port", String.valueOf(port));
    for (int i = 0; i < 5; i++) {
      leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag("shown").build());
    }
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpResponse<String> page =
        client.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, page.statusCode(), page.body());
    assertTrue(
        page.headers().firstValue("Content-Type").orElse("").startsWith("text/html"), "HTML");
    assertTrue(
        page.headers()
            .firstValue("Content-Security-Policy")
            .orElse("")
            .contains("default-src 'none'"),
        "a strict CSP");
    assertTrue(page.body().contains("<td class=\"tag\">shown</td>"), "the served tag");
    assertTrue(page.body().contains("6 in [1, 101)"), "the cursor after five IDs: " + page.body());
    HttpResponse<String> json =
        client.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + MonitorPage.JSON_PATH))
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, json.statusCode(), json.body());
    assertTrue(
        json.body()
            .contains("\"tag\":\"shown\",\"current\":{\"start\":1,\"end\":101," + "\"cursor\":6"),
        json.body());
    assertTrue(
        json.body().contains("\"flag\":\"--max-waiting\",\"limit\":10000,\"inUse\":0"),
        json.body());
    assertTrue(
        json.body()
            .contains(
                "\"flag\":\"--max-stream-memory\",\"limit\":"
                    + leaf.server.service().streamMemoryBytes()
                    + ",\"inUse\":0"),
        json.body());
  }

  private int startLeaf(MemorySegmentStore store, String... flags) throws Exception {
    int port = Ports.free();
    List<String> all = new ArrayList<>(List.of("--http-port", String.valueOf(port)));
    all.addAll(List.of(flags));
    leaf = new InProcessLeaf(store, all.toArray(String[]::new));
    return port;
  }

  private static HttpResponse<String> get(int port, String path, String authorization)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .build()
        .send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void monitor_clientTokenSet_tagNamesOnlyWithAToken() throws Exception {
    MemorySegmentStore store = new MemorySegmentStore();
    store.createTag("secret-tag", 1, 100, null);
    int port = startLeaf(store, "--admin-token", "admin-secret", "--client-token", "client-secret");
    leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag("secret-tag").build());
    for (String path : List.of("/", MonitorPage.JSON_PATH)) {
      HttpResponse<String> anyone = get(port, path, null);
      assertEquals(401, anyone.statusCode(), path + " without a token: " + anyone.body());
      assertFalse(anyone.body().contains("secret-tag"), "no tag name: " + anyone.body());
      assertTrue(
          anyone.body().contains("--monitor-public"), "says how to open it: " + anyone.body());
      assertEquals(403, get(port, path, "Bearer wrong").statusCode(), path + ", a wrong token");
      assertTrue(
          get(port, path, "Bearer client-secret").body().contains("secret-tag"),
          path + " with the client token");
      assertTrue(
          get(port, path, "Bearer admin-secret").body().contains("secret-tag"),
          path + " with the admin token");
    }
  }

  @Test
  void monitor_clientTokenSetButMonitorPublic_open() throws Exception {
    MemorySegmentStore store = new MemorySegmentStore();
    store.createTag("public-tag", 1, 100, null);
    int port =
        startLeaf(
            store,
            "--admin-token",
            "admin-secret",
            "--client-token",
            "client-secret",
            "--monitor-public",
            "true");
    leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag("public-tag").build());
    assertTrue(
        get(port, MonitorPage.JSON_PATH, null).body().contains("public-tag"),
        "--monitor-public: the JSON is open");
    assertEquals(200, get(port, "/", null).statusCode(), "and the page");
  }
}
