package example.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.leaf.client.LeafClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/** The example against the packaged Leaf server: 10,000 orders saved from 8 threads. */
class JpaApplicationTest {

  private static final int THREADS = 8;
  private static final int ORDERS_PER_THREAD = 1_250;

  private static LeafServerProcess server;

  @BeforeAll
  static void startServer() throws Exception {
    server = new LeafServerProcess();
    try (LeafClient admin = LeafClient.forTarget(server.target())
        .token(LeafServerProcess.ADMIN_TOKEN).build()) {
      admin.createTag("order", 0, 0, "order IDs of the JPA example");
    }
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void save_10000OrdersFrom8Threads_noDuplicateKey() throws Exception {
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(
        JpaApplication.class).run("--leaf.client.target=" + server.target())) {
      OrderRepository orders = context.getBean(OrderRepository.class);
      Set<Long> ids = ConcurrentHashMap.newKeySet();
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        done.add(pool.submit(() -> {
          for (int i = 0; i < ORDERS_PER_THREAD; i++) {
            ids.add(orders.save(new PurchaseOrder("item")).getId());
          }
        }));
      }
      for (Future<?> f : done) {
        f.get(5, TimeUnit.MINUTES); // a duplicate key fails its insert here
      }
      pool.shutdown();
      Long stored = context.getBean(JdbcTemplate.class)
          .queryForObject("select count(distinct id) from orders", Long.class);
      assertThat(stored).as("distinct keys stored").isEqualTo(10_000L);
      assertThat(ids).as("distinct IDs handed to the entities").hasSize(10_000);
      assertThat(ids).as("Leaf's first IDs of the tag").allMatch(id -> id >= 1);
    }
  }
}
