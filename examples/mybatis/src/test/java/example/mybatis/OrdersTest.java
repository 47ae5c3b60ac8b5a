package example.mybatis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.client.LeafClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The example against the packaged Leaf server: 10,000 orders inserted from 8 threads. */
class OrdersTest {

  private static LeafServerProcess server;

  @BeforeAll
  static void startServer() throws Exception {
    server = new LeafServerProcess();
    try (LeafClient admin = LeafClient.forTarget(server.target())
        .token(LeafServerProcess.ADMIN_TOKEN).build()) {
      admin.createTag("orders", 0, 0, "order IDs of the MyBatis-Plus example");
    }
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void place_10000OrdersFrom8Threads_noDuplicateKey() throws Exception {
    try (LeafClient client = LeafClient.forTarget(server.target()).usePlaintext().build();
        Orders orders = new Orders(client,
            "jdbc:h2:mem:orders-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")) {
      Set<Long> ids = ConcurrentHashMap.newKeySet();
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        done.add(pool.submit(() -> {
          for (int i = 0; i < 1_250; i++) {
            ids.add(orders.place("item").getId());
          }
        }));
      }
      for (Future<?> f : done) {
        f.get(5, TimeUnit.MINUTES); // a duplicate key fails its insert here
      }
      pool.shutdown();
      assertEquals(10_000L, orders.distinctIds(), "distinct keys stored");
      assertEquals(10_000, ids.size(), "distinct IDs handed to the entities");
      assertTrue(ids.stream().allMatch(id -> id >= 1), "Leaf's first IDs of the tag");
    }
  }
}
