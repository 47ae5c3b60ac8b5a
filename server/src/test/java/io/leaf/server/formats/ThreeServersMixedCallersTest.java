package io.leaf.server.formats;

import static io.leaf.server.testing.FormattedServer.format;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.DatabaseKind;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.FormattedServer;
import io.leaf.server.testing.TestDatabase;
import io.leaf.v1.ParseFormattedIdRequest;
import io.leaf.v1.Reset;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Three servers on one database, each loaded at once by NextFormattedId callers and a
 * NextFormattedIdBatch caller on one format: no value is issued twice, every value has the format's
 * length and a valid check digit.
 */
@Tag("slow")
class ThreeServersMixedCallersTest {

  private static final long NOW = Instant.parse("2026-11-26T10:00:00Z").toEpochMilli();
  private static final int SERVERS = 3;
  private static final int UNARY_CALLERS = 2;
  private static final int UNARY_CALLS = 3_000;
  private static final int BATCHES = 30;

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void unaryAndBatchCallersOnThreeServers_noRepeats(DatabaseKind kind) throws Exception {
    List<FormattedServer> servers = new ArrayList<>();
    int callers = SERVERS * (UNARY_CALLERS + 1);
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try (TestDatabase db = kind.open()) {
      try {
        run(db, servers, pool, callers);
      } finally {
        pool.shutdownNow();
        for (FormattedServer s : servers) {
          s.close();
        }
      }
    }
  }

  private static void run(
      TestDatabase db, List<FormattedServer> servers, ExecutorService pool, int callers)
      throws Exception {
    for (int s = 0; s < SERVERS; s++) {
      servers.add(FormattedServer.start(db, new FakeWallClock(NOW), null));
    }
    servers
        .get(0)
        .createTag(
            "inv", 50, format("INV-{yyyy}-{seq:9}{check:luhn}", Reset.YEARLY, "Europe/Paris"));
    CyclicBarrier start = new CyclicBarrier(callers);
    List<Future<List<String>>> results = new ArrayList<>();
    long began = System.nanoTime();
    for (int c = 0; c < callers; c++) {
      FormattedServer server = servers.get(c % SERVERS);
      boolean batch = c >= SERVERS * UNARY_CALLERS;
      int seed = c;
      results.add(
          pool.submit(
              () -> {
                List<String> got = new ArrayList<>();
                start.await();
                if (batch) {
                  for (int b = 0; b < BATCHES; b++) {
                    got.addAll(server.batch("inv", 1 + (b * 97 + seed * 31) % 500));
                  }
                } else {
                  for (int i = 0; i < UNARY_CALLS; i++) {
                    got.add(server.next("inv"));
                  }
                }
                return got;
              }));
    }
    List<String> all = new ArrayList<>();
    for (Future<List<String>> f : results) {
      all.addAll(f.get(5, TimeUnit.MINUTES));
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
    Set<String> distinct = new HashSet<>(all);
    int repeats = all.size() - distinct.size();
    System.err.println(
        "[leaf-tests] three servers, unary and batch callers, on "
            + db.url.split(":")[1]
            + ": "
            + all.size()
            + " values in "
            + millis
            + " ms, "
            + repeats
            + " repeats");
    assertEquals(0, repeats);
    assertTrue(all.stream().allMatch(v -> v.length() == 19 && v.startsWith("INV-2026-")), "shape");
    for (int i = 0; i < all.size(); i += 997) {
      assertTrue(
          servers
              .get(i % SERVERS)
              .leaf
              .blocking
              .parseFormattedId(
                  ParseFormattedIdRequest.newBuilder()
                      .setBizTag("inv")
                      .setValue(all.get(i))
                      .build())
              .getCheckValid(),
          all.get(i));
    }
  }
}
