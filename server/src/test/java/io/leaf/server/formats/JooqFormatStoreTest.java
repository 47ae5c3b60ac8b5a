package io.leaf.server.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.store.DataSources;
import io.leaf.server.testing.DatabaseKind;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@link FormatStore} contract of {@link JooqFormatStore} on H2, MariaDB and PostgreSQL: the
 * history oldest first, one writer per version, and the newest format of many tags in one read.
 */
class JooqFormatStoreTest {

  private final FakeWallClock clock = new FakeWallClock(1_795_000_000_000L);
  private TestDatabase db;

  @AfterEach
  void drop() throws Exception {
    if (db != null) {
      db.close();
    }
  }

  private JooqFormatStore open(DatabaseKind kind) {
    db = kind.open();
    JooqFormatStore store = new JooqFormatStore(db.pool(4), DataSources.dialectOf(db.url), clock);
    store.createSchemaIfMissing();
    store.createSchemaIfMissing();
    return store;
  }

  private static StoredFormat v(String tag, int version, String pattern) {
    return new StoredFormat(
        tag, version, new FormatDefinition(pattern, "DAILY", "Europe/Berlin"), "", 0);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void history_isOldestFirst_whateverTheInsertOrder_andReadsBackWhatWasStored(DatabaseKind kind) {
    JooqFormatStore store = open(kind);
    assertEquals(List.of(), store.history("order"));
    // Literals may be any printable text up to 256 characters, in any script.
    String head = "订单№-{yyyyMMdd}-{seq:6}";
    String wide = head + "é".repeat(256 - head.length());
    store.add(v("order", 3, "C-{yyyyMMdd}-{seq:6}"));
    clock.advance(java.time.Duration.ofSeconds(1));
    StoredFormat first =
        store.add(
            new StoredFormat(
                "order", 1, new FormatDefinition(wide, "MONTHLY", "+08:00"), "ab".repeat(32), 0));
    store.add(v("order", 2, "B-{yyyyMMdd}-{seq:6}"));
    store.add(v("order-x", 1, "X{seq:4}"));
    List<StoredFormat> h = store.history("order");
    assertEquals(List.of(1, 2, 3), h.stream().map(StoredFormat::version).toList());
    assertEquals(first, h.get(0));
    assertEquals(256, h.get(0).pattern().length());
    assertEquals(clock.millis(), h.get(0).updateTime());
    assertEquals("C-{yyyyMMdd}-{seq:6}", h.get(2).pattern());
    assertEquals(List.of(), store.history("ORDER"), "tags compare byte for byte");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void add_versionTaken_isFormatVersionTaken_andKeepsTheFirst(DatabaseKind kind) {
    JooqFormatStore store = open(kind);
    store.add(v("order", 1, "A{seq:6}"));
    FormatVersionTakenException e =
        assertThrows(FormatVersionTakenException.class, () -> store.add(v("order", 1, "B{seq:6}")));
    assertTrue(e.getMessage().contains("version 1"), e.getMessage());
    assertEquals(
        List.of("A{seq:6}"), store.history("order").stream().map(StoredFormat::pattern).toList());
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void add_eightRacersForOneVersion_exactlyOneStored(DatabaseKind kind) throws Exception {
    JooqFormatStore store = open(kind);
    int racers = 8;
    CyclicBarrier start = new CyclicBarrier(racers);
    ExecutorService pool = Executors.newFixedThreadPool(racers);
    try {
      List<Future<Boolean>> won = new ArrayList<>();
      for (int i = 0; i < racers; i++) {
        String pattern = "R" + i + "{seq:6}";
        Callable<Boolean> race =
            () -> {
              start.await();
              try {
                store.add(v("race", 1, pattern));
                return true;
              } catch (FormatVersionTakenException lost) {
                return false;
              }
            };
        won.add(pool.submit(race));
      }
      int winners = 0;
      for (Future<Boolean> f : won) {
        winners += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
      }
      assertEquals(1, winners);
      assertEquals(1, store.history("race").size());
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void current_ofAThousandTags_isEachOnesNewest_inOneRead(DatabaseKind kind) {
    JooqFormatStore store = open(kind);
    List<String> asked = new ArrayList<>();
    for (int t = 0; t < 1_000; t++) {
      String tag = "tag-" + t;
      asked.add(tag);
      if (t % 4 == 3) {
        continue; // a tag without a format
      }
      // 1 to 3 versions, the newer stored first for some.
      for (int version = 1 + t % 3; version >= 1; version--) {
        store.add(v(tag, version, "T" + t + "-" + version + "{seq:6}"));
      }
    }
    assertEquals(Map.of(), store.current(List.of()));
    Map<String, StoredFormat> current = store.current(asked);
    assertEquals(750, current.size());
    for (int t = 0; t < 1_000; t++) {
      StoredFormat f = current.get("tag-" + t);
      if (t % 4 == 3) {
        assertEquals(null, f, "tag-" + t + " has no format");
      } else {
        assertEquals(1 + t % 3, f.version(), "tag-" + t);
        assertEquals("T" + t + "-" + (1 + t % 3) + "{seq:6}", f.pattern());
      }
    }
  }
}
