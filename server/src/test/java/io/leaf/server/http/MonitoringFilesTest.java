package io.leaf.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.Poll;
import io.leaf.server.testing.Ports;
import io.leaf.server.testing.ServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every metric name the shipped Grafana dashboard and Prometheus alert rules use exists in the
 * {@code /metrics} of a fresh server (started as {@code java -jar} starts it, no call made yet).
 */
@Tag("slow")
class MonitoringFilesTest {

  static final Path DASHBOARD = Path.of("..", "k8s", "monitoring", "grafana-dashboard.json");
  static final Path RULES = Path.of("..", "k8s", "monitoring", "leaf-alerts.rules.yml");

  /**
   * Names the files use that no server of this build exports yet (none today). Each is left out of
   * the check; once the server exports one, this test fails until it is removed from here (so it is
   * checked from then on).
   */
  static final Set<String> NOT_YET_EXPORTED = Set.of();

  private static final Pattern METRIC =
      Pattern.compile("\\b(?:leaf|grpc|hikaricp|jvm|process|system)_[A-Za-z0-9_]+");
  private static final Pattern DASHBOARD_EXPR =
      Pattern.compile("\"expr\":\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
  private static final Pattern RULE_EXPR =
      Pattern.compile("^\\s*expr:\\s*(.+)$", Pattern.MULTILINE);

  @Test
  void dashboardAndRules_everyMetricName_inAFreshServersScrape(@TempDir Path data)
      throws Exception {
    Set<String> used = new TreeSet<>();
    used.addAll(names(Files.readString(DASHBOARD), DASHBOARD_EXPR));
    used.addAll(names(Files.readString(RULES), RULE_EXPR));
    assertTrue(used.size() > 15, "the files use the server's metrics: " + used);

    Set<String> exported = exportedNames(scrapeFreshServer(data));
    Set<String> missing = new TreeSet<>();
    for (String name : used) {
      if (NOT_YET_EXPORTED.contains(name)) {
        assertTrue(
            !exported.contains(name),
            name + " is exported now: remove it from" + " NOT_YET_EXPORTED so that it is checked");
        System.out.println("SKIPPED metric name check of " + name + " (not exported yet)");
      } else if (!exported.contains(name)) {
        missing.add(name);
      }
    }
    assertEquals(
        Set.of(),
        missing,
        "names the dashboard or the rules use that a fresh server" + " does not export");
  }

  private static Set<String> names(String text, Pattern expr) {
    Set<String> out = new TreeSet<>();
    Matcher e = expr.matcher(text);
    while (e.find()) {
      Matcher m = METRIC.matcher(e.group(1));
      while (m.find()) {
        out.add(m.group());
      }
    }
    return out;
  }

  private static Set<String> exportedNames(String scrape) {
    Set<String> out = new TreeSet<>();
    for (String line : scrape.split("\n")) {
      if (!line.isEmpty() && !line.startsWith("#")) {
        out.add(line.split("[{ ]", 2)[0]);
      }
    }
    return out;
  }

  private static String scrapeFreshServer(Path data) throws Exception {
    int grpc = Ports.free();
    int metrics = Ports.free();
    try (ServerProcess server =
        ServerProcess.start(
            "--port",
            String.valueOf(grpc),
            "--metrics-port",
            String.valueOf(metrics),
            "--db-url",
            "jdbc:h2:file:" + data.resolve("leaf") + ";MODE=MySQL")) {
      assertTrue(
          server.awaitLine("Leaf listening", 120, TimeUnit.SECONDS),
          "the server starts:\n" + server.output());
      // The collector's metrics appear with the first collection, which a fresh server on a
      // large heap may not have had yet: one is asked for, as any running server has had.
      Process gc =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                  Long.toString(server.pid()),
                  "GC.run")
              .redirectErrorStream(true)
              .start();
      assertTrue(gc.waitFor(60, TimeUnit.SECONDS), "jcmd GC.run");
      String[] body = {""};
      Poll.until(
          () -> {
            try {
              body[0] = scrape(metrics);
            } catch (Exception e) {
              throw new AssertionError("GET /metrics", e);
            }
            return body[0].contains("jvm_gc_pause_seconds_sum");
          },
          Duration.ofSeconds(15));
      return body[0];
    }
  }

  private static String scrape(int metrics) throws Exception {
    HttpResponse<String> r =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .build()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metrics + "/metrics"))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), "GET /metrics");
    return r.body();
  }
}
