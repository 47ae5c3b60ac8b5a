package io.leaf.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.formats.MemoryFormatStore;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.FakeWallClock;
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
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The monitor's view of formatted tags: each one's pattern, current period and numbers left, and
 * its period rows ({@code tag#key}) marked in the tags table.
 */
class MonitorFormattedTagsTest {

  private InProcessLeaf leaf;

  @AfterEach
  void stop() throws Exception {
    if (leaf != null) {
      leaf.close();
    }
  }

  private static MonitorData.TagRow row(String tag, MonitorData.PeriodOf periodOf) {
    return new MonitorData.TagRow(
        tag,
        new MonitorData.Segments(new MonitorData.Segment(1, 101, 4), null, 100),
        new MonitorData.Activity(0, 1, 0),
        periodOf,
        "");
  }

  private static MonitorData.Snapshot snapshot(
      List<MonitorData.TagRow> tags, List<MonitorData.FormattedRow> formatted) {
    return new MonitorData.Snapshot(
        new MonitorData.ServerState(true, tags.size(), 1), tags, formatted, List.of(), List.of());
  }

  @Test
  void html_formattedTagAndItsRows_shownAndMarked() {
    String html =
        MonitorPage.html(
            snapshot(
                List.of(
                    row("order#20261125", new MonitorData.PeriodOf("order", "20261125", false)),
                    row("order#20261126", new MonitorData.PeriodOf("order", "20261126", true)),
                    row("plain", null),
                    row("seq#all", new MonitorData.PeriodOf("seq", "all", true))),
                List.of(
                    new MonitorData.FormattedRow(
                        "order", "ORD-{yyyyMMdd}-{seq:6}", "20261126", "order#20261126", 999_996),
                    new MonitorData.FormattedRow("seq", "S{seq:4}", "", "seq#all", -1))));
    assertTrue(
        html.contains(
            "<tr><td class=\"tag\">order</td><td class=\"tag\">"
                + "ORD-{yyyyMMdd}-{seq:6}</td><td>20261126</td><td>999996</td>"
                + "<td class=\"tag\">order#20261126</td></tr>"),
        "pattern, period, numbers left: " + html);
    assertTrue(
        html.contains("<td>never resets</td><td>–</td>"),
        "a format that never resets, numbers left unknown");
    assertTrue(
        html.contains("<td>order, period 20261126</td><td></td></tr>"), "the current row marked");
    assertTrue(
        html.contains("<td>order, period 20261125 (earlier)</td><td></td></tr>"),
        "an earlier period's row marked");
    assertTrue(
        html.contains("<td>seq, never resets</td><td></td></tr>"),
        "the row of a never-reset format");
    assertTrue(
        Pattern.compile("<td class=\"tag\">plain</td>.*<td>–</td><td></td></tr>")
            .matcher(html)
            .find(),
        "a plain tag is no period row");
  }

  @Test
  void html_patternHoldingMarkupOrAPlaceholder_staysText() {
    String html =
        MonitorPage.html(
            snapshot(
                List.of(row("t", null)),
                List.of(
                    new MonitorData.FormattedRow("x", "<b>{{tags}}</b>{seq:4}", "", "x#all", 5))));
    assertTrue(html.contains("&lt;b&gt;{{tags}}&lt;/b&gt;{seq:4}"), "shown as written");
    assertEquals(
        1,
        html.split("<td class=\"tag\">t</td>", -1).length - 1,
        "the tags table is not pasted into the pattern");
    assertFalse(
        Pattern.compile("<[^>]*\\s(style|on[a-z]+)=").matcher(html).find(),
        "no inline style or handler, which the CSP would block");
  }

  @Test
  void json_formattedTagsAndPeriodRows() {
    String json =
        MonitorJson.of(
            snapshot(
                List.of(
                    row("order#20261126", new MonitorData.PeriodOf("order", "20261126", true)),
                    row("plain", null)),
                List.of(
                    new MonitorData.FormattedRow(
                        "order", "<O>{seq:6}", "20261126", "order#20261126", 42))));
    assertTrue(
        json.contains(
            "\"periodOf\":{\"tag\":\"order\",\"key\":\"20261126\"," + "\"current\":true}"),
        json);
    assertTrue(json.contains("\"tag\":\"plain\"") && json.contains("\"periodOf\":null"), json);
    assertTrue(
        json.contains(
            "\"formatted\":[{\"tag\":\"order\",\"pattern\":"
                + "\"\\u003cO\\u003e{seq:6}\",\"period\":\"20261126\",\"row\":\"order#20261126\","
                + "\"numbersLeft\":42}]"),
        json);
  }

  @Test
  void page_formattedTagServed_showsPatternPeriodAndNumbersLeft() throws Exception {
    int port = Ports.free();
    FakeWallClock wall = new FakeWallClock(Instant.parse("2026-11-26T10:00:00Z").toEpochMilli());
    MemorySegmentStore store = new MemorySegmentStore();
    leaf =
        new InProcessLeaf(
            store,
            Ticker.systemTicker(),
            EngineConfig.DEFAULTS,
            s -> s.formats(new MemoryFormatStore()).wallClock(wall),
            "--http-port",
            String.valueOf(port));
    leaf.blocking.createTag(
        CreateTagRequest.newBuilder()
            .setBizTag("order")
            .setFormat(
                IdFormat.newBuilder()
                    .setPattern("ORD-{yyyyMMdd}-{seq:6}")
                    .setReset(Reset.DAILY)
                    .setTimeZone("UTC"))
            .build());
    for (int i = 0; i < 3; i++) {
      leaf.blocking.nextFormattedId(NextIdRequest.newBuilder().setBizTag("order").build());
    }
    // A plain tag whose name merely holds a '#' (a table written by hand may have one).
    store.createTag("order#notes", 1, 100, null);
    leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag("order#notes").build());
    String page = get(port, "/");
    assertTrue(
        Pattern.compile("<td class=\"tag\">order#notes</td>.*<td>–</td><td></td></tr>")
            .matcher(page)
            .find(),
        "no period row: " + page);
    assertTrue(
        page.contains(
            "<td class=\"tag\">order</td><td class=\"tag\">"
                + "ORD-{yyyyMMdd}-{seq:6}</td><td>20261126</td><td>999996</td>"
                + "<td class=\"tag\">order#20261126</td>"),
        "the pattern, the period and 10^6 - 4 numbers left after three: " + page);
    assertTrue(page.contains("<td>order, period 20261126</td>"), "the period row marked");
    String json = get(port, MonitorPage.JSON_PATH);
    assertTrue(json.contains("\"numbersLeft\":999996"), json);
    assertTrue(json.contains("\"tag\":\"order#20261126\""), "the row is a tag held: " + json);

    wall.advance(Duration.ofDays(1));
    leaf.blocking.nextFormattedId(NextIdRequest.newBuilder().setBizTag("order").build());
    page = get(port, "/");
    assertTrue(
        page.contains("<td>20261127</td><td>999998</td>"),
        "the new period, one number taken: " + page);
    assertTrue(
        page.contains("<td>order, period 20261126 (earlier)</td>"),
        "yesterday's row, still held, marked as earlier: " + page);
    assertEquals(
        1,
        page.split("<td class=\"tag\">order</td>", -1).length - 1,
        "one formatted tag, however many of its rows are held");
  }

  private static String get(int port, String path) throws Exception {
    HttpResponse<String> r =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .build()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), path + ": " + r.body());
    return r.body();
  }
}
