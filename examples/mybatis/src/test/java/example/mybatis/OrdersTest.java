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
      admin.createTag("t_order", 0, 0, "keys of the sharded table of the example");
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
    placeOrders("org.h2.Driver",
        "jdbc:h2:mem:orders-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");
  }

  @Test
  void place_onMariaDb_10000OrdersFrom8Threads_noDuplicateKey() throws Exception {
    try (MariaDbDatabase db = MariaDbDatabase.createOrSkip()) {
      placeOrders("com.mysql.cj.jdbc.Driver", db.url(), MariaDbDatabase.USER,
          MariaDbDatabase.PASSWORD);
      System.out.println("MariaDB: 10000 orders inserted in " + db.name + ", no duplicate key");
    }
  }

  private static void placeOrders(String driver, String url, String user, String password)
      throws Exception {
    try (LeafClient client = LeafClient.forTarget(server.target()).usePlaintext().build();
        Orders orders = new Orders(client, driver, url, user, password)) {
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

  @Test
  void shardedPlace_10000RowsFrom8Threads_leafKeysNoDuplicateAcrossShards() throws Exception {
    String run = UUID.randomUUID().toString();
    List<String> shards = List.of(
        "jdbc:h2:mem:shard0-" + run + ";DB_CLOSE_DELAY=-1",
        "jdbc:h2:mem:shard1-" + run + ";DB_CLOSE_DELAY=-1");
    try (ShardedOrders orders = new ShardedOrders(server.target(), "t_order", shards)) {
      Set<Long> returned = ConcurrentHashMap.newKeySet();
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        done.add(pool.submit(() -> {
          for (int i = 0; i < 1_250; i++) {
            returned.add(orders.place(thread * 1_250 + i, "item"));
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(5, TimeUnit.MINUTES); // a duplicate key within a shard fails its insert here
      }
      pool.shutdown();
      List<List<Long>> byShard = orders.keysByShard();
      Set<Long> stored = new java.util.HashSet<>();
      byShard.forEach(stored::addAll);
      int rows = byShard.get(0).size() + byShard.get(1).size();
      System.out.printf("sharded: %d rows (%d in ds_0, %d in ds_1), %d distinct keys%n",
          rows, byShard.get(0).size(), byShard.get(1).size(), stored.size());
      assertEquals(10_000, rows, "rows in both shards");
      assertEquals(5_000, byShard.get(0).size(), "rows of even user_ids in ds_0");
      assertEquals(10_000, stored.size(), "distinct order_ids across both shards");
      assertEquals(stored, returned, "the generated keys JDBC returned are the stored ones");
      assertTrue(stored.stream().allMatch(id -> id >= 1 && id < (1L << 32)),
          "keys from the Leaf tag t_order, not a snowflake: " + stored.stream().max(Long::compare));
    }
  }
}
