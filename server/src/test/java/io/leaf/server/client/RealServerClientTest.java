package io.leaf.server.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.leaf.client.CachedIdGenerator;
import io.leaf.client.LeafClient;
import io.leaf.client.LeafUnavailableException;
import io.leaf.server.LeafServer;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.testing.IdChecks;
import io.leaf.server.wiring.LeafServerBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The client over TCP against the real Netty server on a free port with an H2 file database. */
class RealServerClientTest {

  private static final int THREADS = 8;
  private static final int PER_THREAD = 1_000_000;

  private LeafServer server;
  private String target;

  @BeforeEach
  void setUp() throws Exception {
    Path dir = Files.createTempDirectory("leaf-client-");
    ServerConfig config =
        ServerConfig.parse(
            new String[] {
              "--port",
              "0",
              "--db-url",
              "jdbc:h2:file:" + dir.resolve("leaf").toAbsolutePath() + ";MODE=MySQL"
            },
            env -> null);
    server = LeafServerBuilder.forConfig(config).build().start();
    target = "127.0.0.1:" + server.port();
  }

  @AfterEach
  void tearDown() {
    server.stop();
  }

  @Tag("slow")
  @Test
  void cachedIdGenerator_eightThreadsMillionEach_allUnique() throws Exception {
    // Generous deadlines: on a loaded machine a block of a million IDs can take seconds.
    try (LeafClient client = LeafClient.forTarget(target).deadline(Duration.ofMinutes(1)).build()) {
      client.createTag("load", 0, 1_000, "stress");
      CachedIdGenerator generator =
          CachedIdGenerator.builder(client, "load").maxWait(Duration.ofSeconds(30)).build();
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      long[][] perThread = new long[THREADS][];
      try {
        List<Future<long[]>> runs = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          runs.add(
              pool.submit(
                  () -> {
                    long[] ids = new long[PER_THREAD];
                    for (int i = 0; i < PER_THREAD; i++) {
                      ids[i] = generator.next();
                    }
                    return ids;
                  }));
        }
        for (int t = 0; t < THREADS; t++) {
          perThread[t] = runs.get(t).get(5, TimeUnit.MINUTES);
          IdChecks.assertIncreasing(perThread[t], "thread " + t);
        }
      } finally {
        pool.shutdownNow();
        generator.close();
      }
      IdChecks.assertAllDistinct(perThread);
      System.out.printf(
          "[leaf-client] %d x %d next(): all unique; %d calls waited, %d blocks"
              + " fetched, last block size %d%n",
          THREADS, PER_THREAD, generator.waits(), generator.refills(), generator.blockSize());
    }
  }

  @Test
  void forTarget_plaintext_everyCallWorksOverTcp() {
    try (LeafClient client = LeafClient.forTarget(target).deadline(Duration.ofSeconds(5)).build()) {
      client.createTag("tcp", 0, 0, null);
      assertEquals(1, client.nextId("tcp"));
      long[] ids = client.nextIds("tcp", 3);
      assertEquals(List.of(2L, 3L, 4L), Arrays.stream(ids).boxed().toList());
    }
  }

  @Test
  void useTls_plaintextServer_leafUnavailable() {
    try (LeafClient client =
        LeafClient.forTarget(target)
            .useTls()
            .maxAttempts(1)
            .deadline(Duration.ofSeconds(5))
            .build()) {
      assertThrows(
          LeafUnavailableException.class,
          () -> client.nextId("tcp"),
          "a TLS handshake with a plaintext server fails as UNAVAILABLE");
    }
  }
}
