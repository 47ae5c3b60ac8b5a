package io.leaf.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** An HTTP/1.1 client of one test server's {@code --http-port}, and the one-line reason check. */
final class HttpPortClient {

  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(20))
          .build();
  private final int port;

  HttpPortClient(int port) {
    this.port = port;
  }

  int port() {
    return port;
  }

  HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(30));
  }

  HttpResponse<String> get(String path) throws Exception {
    return send(request(path).build());
  }

  HttpResponse<String> get(String path, String authorization) throws Exception {
    return send(request(path).header("Authorization", authorization).build());
  }

  HttpResponse<String> send(HttpRequest request) throws Exception {
    return client.send(request, HttpResponse.BodyHandlers.ofString());
  }

  CompletableFuture<HttpResponse<String>> sendAsync(HttpRequest request) {
    return client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
  }

  /** {@code r} has {@code status} and a one-line body naming {@code reasonPart}. */
  static void assertStatus(int status, String reasonPart, HttpResponse<String> r, String what) {
    assertEquals(status, r.statusCode(), what + ": " + r.body());
    assertTrue(
        r.body().contains(reasonPart), what + " names the cause (" + reasonPart + "): " + r.body());
    assertEquals(1, r.body().split("\n").length, what + " is one line: " + r.body());
  }
}
