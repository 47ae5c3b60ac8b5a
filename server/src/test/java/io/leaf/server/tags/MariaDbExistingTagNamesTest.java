package io.leaf.server.tags;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leaf.server.testing.MeituanTables;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class MariaDbExistingTagNamesTest extends ExistingTagNamesTest {

  @Override
  TestDatabase database() {
    return TestDatabases.mariaDb();
  }

  /** Meituan Leaf's DDL in utf8mb4 with a case- and pad-insensitive collation. */
  @Override
  String meituanDdl() {
    return MeituanTables.MARIADB + " DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci";
  }

  /**
   * {@code Pay}, {@code PAY} and {@code pay } name one row under this collation; the server keeps a
   * buffer per name, and each buffer's segments come from the row's own atomic bumps, so the names
   * together never see an ID twice.
   */
  @Test
  void namesTheCollationEquates_concurrentNextIdAndReserveIds_disjointIds() throws Exception {
    insert("pay", 1, 7);
    List<String> spellings = List.of("pay", "Pay", "PAY", "pay ");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<Long>>> results = new ArrayList<>();
      for (String spelling : spellings) {
        results.add(
            pool.submit(
                () -> {
                  List<Long> ids = new ArrayList<>();
                  for (int i = 0; i < 300; i++) {
                    if (i % 50 == 0) {
                      leaf.reserveIds(
                              ReserveIdsRequest.newBuilder()
                                  .setBizTag(spelling)
                                  .setCount(20)
                                  .build())
                          .getRangesList()
                          .forEach(
                              r -> {
                                for (long id = r.getStart(); id < r.getEnd(); id++) {
                                  ids.add(id);
                                }
                              });
                    } else {
                      ids.add(
                          leaf.nextId(NextIdRequest.newBuilder().setBizTag(spelling).build())
                              .getId());
                    }
                  }
                  return ids;
                }));
      }
      Set<Long> seen = new HashSet<>();
      int total = 0;
      for (Future<List<Long>> f : results) {
        for (long id : f.get()) {
          total++;
          seen.add(id);
        }
      }
      assertEquals(4 * (294 + 6 * 20), total, "every call answered");
      assertEquals(
          total, seen.size(), "repeated IDs across names of one row: " + (total - seen.size()));
    } finally {
      pool.shutdownNow();
    }
  }
}
