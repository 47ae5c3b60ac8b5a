package io.leaf.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.ledger.LedgerSettings;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.LedgeredStore;
import io.leaf.server.testing.Ports;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code GET /api/ledger/{biz_tag}/{id}}: WhoIssued over HTTP. */
class LedgerEndpointTest {

  private final LedgeredStore memory =
      LedgeredStore.memory(InstantSource.system(), LedgerSettings.on("host:1/2-abcdef"));
  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(20))
          .build();
  private InProcessLeaf leaf;
  private int port;

  private void start(String... flags) throws Exception {
    port = Ports.free();
    String[] all = new String[flags.length + 2];
    all[0] = "--http-port";
    all[1] = String.valueOf(port);
    System.arraycopy(flags, 0, all, 2, flags.length);
    leaf = new InProcessLeaf(memory, all);
  }

  @AfterEach
  void stop() throws Exception {
    if (leaf != null) {
      leaf.close();
    }
  }

  private HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void ledger_anIdIssued_theRecordAsJson() throws Exception {
    start();
    memory.createTag("order", 1, 100, null);
    String id = get("/api/segment/get/order").body();

    HttpResponse<String> r = get("/api/ledger/order/" + id);
    assertEquals(200, r.statusCode(), r.body());
    assertTrue(
        r.body()
            .matches(
                "\\{\"start\":1,\"end\":101,\"server\":\"host:1/2-abcdef\","
                    + "\"time_ms\":\\d+,\"kind\":\"segment\"}"),
        r.body());
  }

  @Test
  void ledger_noRecord_404_badId_400_badPath_404() throws Exception {
    start();
    memory.createTag("order", 1, 100, null);

    assertEquals(404, get("/api/ledger/order/5").statusCode());
    assertEquals(400, get("/api/ledger/order/five").statusCode());
    assertEquals(404, get("/api/ledger/order").statusCode());
  }

  @Test
  void ledger_clientToken_required() throws Exception {
    start("--admin-token", "adm", "--client-token", "cli");
    memory.createTag("order", 1, 100, null);

    assertEquals(401, get("/api/ledger/order/5").statusCode());
    assertEquals(404, get("/api/ledger/order/5", "Authorization", "Bearer cli").statusCode());
  }
}
