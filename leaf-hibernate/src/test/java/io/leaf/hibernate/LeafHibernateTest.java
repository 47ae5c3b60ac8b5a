package io.leaf.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.client.IdFormat;
import io.leaf.client.LeafClient;
import io.leaf.client.LeafUnavailableException;
import io.leaf.hibernate.Entities.Event;
import io.leaf.hibernate.Entities.Invoice;
import io.leaf.hibernate.Entities.Order;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The three annotations on H2 entities, their IDs from the packaged Leaf server. */
@Tag("slow")
class LeafHibernateTest {

  private static PackagedLeafServer server;
  private static LeafClient client;
  private static SessionFactory sessions;

  @BeforeAll
  static void start() throws Exception {
    server = new PackagedLeafServer();
    client = LeafClient.forTarget(server.target()).usePlaintext().build();
    client.createTag("order", 0, 100, "hibernate orders");
    client.createTag("invoice", 0, 0, "hibernate invoices", IdFormat.of("INV-{seq:8}{check:luhn}"));
    LeafIds.register(client);
    sessions =
        new Configuration()
            .addAnnotatedClass(Order.class)
            .addAnnotatedClass(Invoice.class)
            .addAnnotatedClass(Event.class)
            .setProperty(
                "hibernate.connection.url",
                "jdbc:h2:mem:leaf-hibernate-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
            .setProperty("hibernate.connection.pool_size", "10")
            .setProperty("hibernate.hbm2ddl.auto", "create")
            .buildSessionFactory();
  }

  @AfterAll
  static void stop() throws Exception {
    if (sessions != null) {
      sessions.close();
    }
    LeafIds.clear();
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /**
   * Polls (every 50 ms, at most 30 s) until the server issues snowflake IDs: its worker ID issues
   * once the lease TTL (1 s here) plus 1 s has passed since the claim.
   */
  private static void awaitSnowflakeIds() {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        client.nextSnowflakeId();
        return;
      } catch (LeafUnavailableException e) {
        if (System.nanoTime() > end) {
          throw e;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
      }
    }
  }

  @Test
  void persist_10000OrdersFrom8Threads_noDuplicateKey() throws Exception {
    Set<Long> ids = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      int thread = t;
      done.add(
          pool.submit(
              () -> {
                for (int batch = 0; batch < 25; batch++) {
                  List<Order> orders = new ArrayList<>();
                  sessions.inTransaction(
                      session -> {
                        for (int i = 0; i < 50; i++) {
                          Order o = new Order("t" + thread);
                          session.persist(o);
                          orders.add(o);
                        }
                      });
                  for (Order o : orders) {
                    ids.add(o.id);
                  }
                }
              }));
    }
    for (Future<?> f : done) {
      f.get(5, TimeUnit.MINUTES); // a duplicate key would fail its insert here
    }
    pool.shutdown();
    long rows =
        sessions.fromSession(
            s ->
                s.createSelectionQuery(
                        "select count(distinct o.id) from PurchaseOrder o", Long.class)
                    .getSingleResult());
    assertEquals(10_000, ids.size(), "distinct IDs handed to the entities");
    assertEquals(10_000L, rows, "distinct keys stored");
    assertTrue(ids.stream().allMatch(id -> id >= 1), "Leaf segment IDs start at 1");
  }

  @Test
  void persist_invoice_takesTheTagsFormattedNumber() {
    Invoice a = new Invoice(10);
    Invoice b = new Invoice(20);
    sessions.inTransaction(
        s -> {
          s.persist(a);
          s.persist(b);
        });
    Pattern format = Pattern.compile("INV-\\d{9}");
    assertTrue(format.matcher(a.number).matches(), "formatted: " + a.number);
    assertTrue(format.matcher(b.number).matches(), "formatted: " + b.number);
    assertTrue(a.number.compareTo(b.number) < 0, a.number + " before " + b.number);
    Invoice read = sessions.fromSession(s -> s.find(Invoice.class, b.number));
    assertEquals(20, read.amount, "stored under its number");
  }

  @Test
  void persist_event_takesIncreasingSnowflakeIds() {
    awaitSnowflakeIds();
    List<Event> events = new ArrayList<>();
    sessions.inTransaction(
        s -> {
          for (int i = 0; i < 100; i++) {
            Event e = new Event("e" + i);
            s.persist(e);
            events.add(e);
          }
        });
    for (int i = 1; i < events.size(); i++) {
      assertTrue(
          events.get(i).id > events.get(i - 1).id,
          "snowflake IDs increase: " + events.get(i - 1).id + ", " + events.get(i).id);
    }
  }
}
