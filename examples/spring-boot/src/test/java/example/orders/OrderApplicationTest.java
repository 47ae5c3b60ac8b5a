package example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import io.leaf.client.LeafClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example application against a live Leaf server: the starter's beans give every order a
 * unique ID, the {@code leaf} health indicator follows the server, the meters count the IDs.
 */
class OrderApplicationTest {

  private static final int THREADS = 4;
  private static final int ORDERS_PER_THREAD = 5_000;
  private static final int ORDERS_AT_START = 3;

  private static LeafServerProcess server;

  @BeforeAll
  static void startServer() throws Exception {
    server = new LeafServerProcess();
    // Tags are created by an operator, not by the application: the test plays the operator.
    try (LeafClient admin = LeafClient.forTarget(server.target())
        .token(LeafServerProcess.ADMIN_TOKEN).build()) {
      admin.createTag("orders", 0, 0, "order IDs of the Spring Boot example");
    }
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private static ConfigurableApplicationContext start() {
    return new SpringApplicationBuilder(OrderApplication.class)
        .run("--leaf.client.target=" + server.target(),
            "--example.orders-at-start=" + ORDERS_AT_START);
  }

  @Test
  void orders_placedFromManyThreads_getUniqueIdsIncreasingPerThread() throws Exception {
    try (ConfigurableApplicationContext context = start()) {
      OrderService orders = context.getBean(OrderService.class);
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      List<Future<long[]>> results = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        results.add(pool.submit(() -> {
          long[] ids = new long[ORDERS_PER_THREAD];
          for (int i = 0; i < ids.length; i++) {
            ids[i] = orders.place("item").id();
          }
          return ids;
        }));
      }
      Set<Long> all = new HashSet<>();
      for (Future<long[]> f : results) {
        long[] ids = f.get();
        for (int i = 0; i < ids.length; i++) {
          assertThat(all.add(ids[i])).as("order ID %d handed out once", ids[i]).isTrue();
          if (i > 0) {
            assertThat(ids[i]).as("a thread's order IDs increase").isGreaterThan(ids[i - 1]);
          }
        }
      }
      pool.shutdown();
      assertThat(all).as("unique order IDs").hasSize(THREADS * ORDERS_PER_THREAD);
      assertThat(all).as("IDs the server issued").allMatch(id -> id >= 1);

      MeterRegistry registry = context.getBean(MeterRegistry.class);
      assertThat(registry.get("leaf.client.ids.served").tag("biz_tag", "orders")
          .functionCounter().count()).as("IDs served, the orders placed at start included")
          .isEqualTo(THREADS * ORDERS_PER_THREAD + ORDERS_AT_START);
    }
  }

  @Test
  void leafHealth_withTheServerUp_upUnderTheNameLeaf() {
    try (ConfigurableApplicationContext context = start()) {
      HealthContributor contributor = context.getBean(HealthContributorRegistry.class)
          .getContributor("leaf");
      assertThat(contributor).as("the health contributor Actuator lists as leaf")
          .isInstanceOf(HealthIndicator.class);
      Health health = ((HealthIndicator) contributor).health();
      assertThat(health.getStatus()).as("leaf health: " + health).isEqualTo(Status.UP);
    }
  }
}
