package io.leaf.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.grpc.ServerInterceptor;
import io.leaf.server.config.HttpConfig;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.http.HttpEndpoints;
import io.leaf.server.http.LeafHttpServer;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.threads.ServerThreads;
import io.leaf.v1.NextIdRequest;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Scrapes of {@code GET /metrics} around calls on the in-process transport. */
class MetricsTest {

  private Metrics metrics;
  private LeafHttpServer endpoint;
  private InProcessLeaf leaf;

  @BeforeEach
  void start() throws Exception {
    metrics = new Metrics();
    endpoint =
        LeafHttpServer.start(
            "metrics-test",
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            HttpConfig.DEFAULTS,
            HttpEndpoints.metricsRoutes(metrics),
            ServerThreads::http,
            metrics::limitRefused);
    MemorySegmentStore store = new MemorySegmentStore();
    store.createTag("metered", 1, 1000, "");
    leaf =
        new InProcessLeaf(
            store,
            Ticker.systemTicker(),
            EngineConfig.DEFAULTS,
            server -> {
              for (ServerInterceptor interceptor : metrics.interceptors()) {
                server.intercept(interceptor);
              }
              server.metrics(metrics);
            });
  }

  @AfterEach
  void stop() throws Exception {
    leaf.close();
    endpoint.close();
    metrics.close();
  }

  private String scrape() throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics"))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode(), "GET /metrics");
    assertTrue(
        response.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"),
        "Prometheus text format");
    return response.body();
  }

  /** The value of the first sample named {@code name} whose labels contain every {@code label}. */
  private static double sample(String scrape, String name, String... labels) {
    Matcher m =
        Pattern.compile("^" + Pattern.quote(name) + "(?:\\{([^}]*)})? (\\S+)$", Pattern.MULTILINE)
            .matcher(scrape);
    while (m.find()) {
      String have = m.group(1) == null ? "" : m.group(1);
      boolean all = true;
      for (String label : labels) {
        all &= have.contains(label);
      }
      if (all) {
        return Double.parseDouble(m.group(2));
      }
    }
    return 0;
  }

  @Test
  void scrape_afterNNextIdCalls_methodCounterMovedByNAndLoadHistogram() throws Exception {
    String before = scrape();
    int n = 25;
    for (int i = 0; i < n; i++) {
      leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag("metered").build());
    }
    String after = scrape();
    String count = "grpc_server_processing_duration_seconds_count";
    double moved =
        sample(after, count, "method=\"NextId\"", "statusCode=\"OK\"")
            - sample(before, count, "method=\"NextId\"", "statusCode=\"OK\"");
    assertEquals(n, moved, "NextId OK calls counted once each");
    assertTrue(
        sample(
                after,
                "grpc_server_processing_duration_seconds_bucket",
                "method=\"NextId\"",
                "le=\"+Inf\"")
            >= n,
        "a latency histogram per method");
    assertTrue(
        sample(after, "leaf_segment_loads_seconds_count", "kind=\"first\"", "outcome=\"loaded\"")
            >= 1,
        "the first load counted:\n" + after);
    assertTrue(
        sample(after, "leaf_segment_loads_seconds_bucket", "outcome=\"loaded\"", "le=\"+Inf\"")
            >= 1,
        "segment loads have a latency histogram");
    assertEquals(1, sample(after, "leaf_tags_cached"), "one tag cached");
    assertTrue(after.contains("jvm_memory_used_bytes"), "JVM meters are there");
    assertEquals(1, sample(after, "leaf_database_up"), "the server's database check passed");
    assertEquals(
        0,
        sample(after, "leaf_segment_rewinds_total"),
        "registered at zero: an alert can watch it before the first rewind");
    assertEquals(0, sample(after, "leaf_segment_drops_total"), "registered at zero");
    assertTrue(
        sample(after, "leaf_segment_waits_total") >= 1,
        "the first call waited for the tag's first load:\n" + after);
  }

  @Test
  void scrape_unknownTagTwice_missingHitAndNotFoundCounted() throws Exception {
    for (int i = 0; i < 2; i++) {
      io.grpc.StatusRuntimeException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              io.grpc.StatusRuntimeException.class,
              () -> leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag("nobody").build()));
      assertEquals(io.grpc.Status.Code.NOT_FOUND, e.getStatus().getCode(), "unknown tag");
    }
    String after = scrape();
    assertEquals(
        1,
        sample(after, "leaf_missing_tag_hits_total"),
        "the second call answered from the missing-tag cache:\n" + after);
    assertEquals(
        1,
        sample(after, "leaf_segment_loads_seconds_count", "outcome=\"not_found\""),
        "one load found no tag");
    assertEquals(
        2,
        sample(
            after,
            "grpc_server_processing_duration_seconds_count",
            "method=\"NextId\"",
            "statusCode=\"NOT_FOUND\""),
        "both calls by status");
    assertTrue(!after.contains("nobody"), "no tag name in any label");
  }

  @Test
  void outcome_storeUnavailable_isUnavailable() {
    assertEquals(
        "unavailable",
        Metrics.outcome(new StoreUnavailableException("down", null)),
        "outcome label of an outage");
    assertEquals("loaded", Metrics.outcome(null), "outcome label of a load");
  }

  @Test
  void scrape_whileAClientStallsHalfwayThroughARequest_answered() throws Exception {
    try (Socket stalled = new Socket(InetAddress.getLoopbackAddress(), endpoint.port())) {
      OutputStream out = stalled.getOutputStream();
      out.write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      for (int i = 0; i < 3; i++) {
        assertTrue(scrape().contains("leaf_tags_cached"), "scrape " + i + " while one stalls");
      }
    }
  }

  @Test
  void endpoint_otherPath_notFound() throws Exception {
    HttpResponse<Void> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port() + "/other"))
                    .build(),
                HttpResponse.BodyHandlers.discarding());
    assertEquals(404, response.statusCode(), "only /metrics is served");
  }
}
