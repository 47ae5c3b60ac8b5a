package io.leaf.server.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.leaf.client.LeafClient;
import io.leaf.client.LeafException;
import io.leaf.server.region.RegionCallers.Call;
import io.leaf.server.testing.IdChecks;
import io.leaf.server.testing.NetworkNamespace;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.ServerProcess;
import io.leaf.server.testing.TcpProxy;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two regions on one machine across a real network boundary: region 0's server on MariaDB and
 * region 1's on PostgreSQL, each a server process in a network namespace of its own, reached from
 * the test JVM over a veth pair; each region's database is reached through a proxy on that link.
 * Each region's callers use a client that prefers their region's server. Region 0's link is cut and
 * restored, then its database killed (the proxy stopped) and restored: region 0's callers move to
 * region 1 and back, both regions keep issuing, no call fails, no ID repeats, and every ID lies in
 * the share of the region whose server issued it.
 */
@Tag("slow")
class RegionNamespacesTest {

  private static final long SHARE = 1L << 62;
  private static final int PORT = 50051;
  private static final String TAG = "order";
  private static final int CALLERS = 3;
  private static final Duration FAILOVER_AFTER = Duration.ofSeconds(1);
  private static final Duration RETRY_PREFERRED_AFTER = Duration.ofSeconds(3);
  private static final Duration DEADLINE = Duration.ofSeconds(10);

  /** The client moves within FAILOVER_AFTER; the rest is room for a loaded two-core machine. */
  private static final Duration FAILOVER_BOUND = Duration.ofSeconds(5);

  private static final Duration PHASE_LIMIT = Duration.ofSeconds(30);

  /** Calls a phase makes through its changed route before it ends. */
  private static final int CALLS_PER_PHASE = 150;

  /**
   * How long an outage lasts at least: past RETRY_PREFERRED_AFTER, so that callers try the region
   * that is down again, find it still down and move once more.
   */
  private static final Duration OUTAGE = Duration.ofSeconds(5);

  /** How long region 0's callers stay on their own server between outages, at least. */
  private static final Duration STEADY = Duration.ofSeconds(3);

  private static final Pattern URL = Pattern.compile("^(jdbc:[a-z]+://)([^/:]+)(?::(\\d+))?(/.*)$");

  /** One region: its namespace, the proxy to its database, and its server inside. */
  private record Region(NetworkNamespace ns, TcpProxy proxy, ServerProcess server)
      implements AutoCloseable {

    static Region start(String prefix, String subnet, TestDatabase db, String region)
        throws Exception {
      Matcher url = URL.matcher(db.url);
      assertTrue(url.matches(), db.url);
      int dbPort =
          url.group(3) != null ? Integer.parseInt(url.group(3)) : db.isPostgres() ? 5432 : 3306;
      NetworkNamespace ns = NetworkNamespace.create(prefix, subnet);
      TcpProxy proxy = null;
      try {
        proxy = new TcpProxy(ns.hostAddress, url.group(2), dbPort).start();
        String viaProxy = url.group(1) + ns.hostAddress + ":" + proxy.port() + url.group(4);
        ServerProcess server =
            ServerProcess.startWithin(
                ns.exec(),
                List.of("-Xmx256m"),
                Map.of(),
                "--port",
                Integer.toString(PORT),
                "--db-url",
                viaProxy,
                "--db-user",
                db.user,
                "--db-password",
                db.password,
                "--db-pool-size",
                "2",
                "--region",
                region,
                "--max-step",
                "2000");
        return new Region(ns, proxy, server);
      } catch (Exception | Error e) {
        if (proxy != null) {
          proxy.close();
        }
        ns.close();
        throw e;
      }
    }

    String target() {
      return ns.address + ":" + PORT;
    }

    void awaitListening() throws InterruptedException {
      assertTrue(
          server.awaitLine("Leaf listening", 90, TimeUnit.SECONDS),
          "the server in " + ns.name + " started:\n" + server.output());
    }

    @Override
    public void close() throws Exception {
      try {
        server.close();
        proxy.close();
      } finally {
        ns.close();
      }
    }
  }

  @Test
  @Timeout(240)
  void twoRegions_linkCutAndDatabaseKilled_callersFailOverAndBack_noRepeats() throws Exception {
    NetworkNamespace.assumeAvailable();
    NetworkNamespace.removeLeftovers("leafA");
    NetworkNamespace.removeLeftovers("leafB");
    String net = "10.250." + ThreadLocalRandom.current().nextInt(256) + ".";
    try (TestDatabase dbA = TestDatabases.mariaDb();
        TestDatabase dbB = TestDatabases.postgres();
        Region a = Region.start("leafA", net + "0", dbA, "0/2");
        Region b = Region.start("leafB", net + "4", dbB, "1/2")) {
      a.awaitListening();
      b.awaitListening();
      run(new Region[] {a, b});
    }
  }

  private static void run(Region[] regions) throws Exception {
    ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
    List<LeafClient> clients = new ArrayList<>();
    List<RegionCallers> callers = new ArrayList<>();
    try {
      for (int home = 0; home < 2; home++) {
        LeafClient client = client(regions, home);
        clients.add(client);
        client.createTag(TAG, 0, 500, "two regions"); // on the home server: never moved
        callers.add(new RegionCallers(home, client, TAG, calls));
      }
      long t0 = System.nanoTime();
      callers.forEach(c -> c.start(CALLERS));
      Predicate<Call> aViaA = c -> c.home() == 0 && c.server() == 0;
      Predicate<Call> aViaB = c -> c.home() == 0 && c.server() == 1;
      awaitCalls(calls, t0, STEADY, aViaA, "region 0's callers on their own server");

      long cut = System.nanoTime();
      regions[0].ns().cut();
      long cutFailover = awaitFirst(calls, cut, aViaB, "region 0's callers via region 1, link cut");
      awaitCalls(calls, cut, OUTAGE, aViaB, "region 0's callers via region 1, link cut");
      long linkUp = System.nanoTime();
      regions[0].ns().restore();
      long linkBack = awaitFirst(calls, linkUp, aViaA, "region 0's callers back, link restored");
      awaitCalls(calls, linkUp + linkBack, STEADY, aViaA, "region 0's callers back, link restored");

      long kill = System.nanoTime();
      regions[0].proxy().stop();
      String refusal = awaitUnavailable(regions[0], calls);
      long killFailover =
          awaitFirst(calls, kill, aViaB, "region 0's callers via region 1, " + "database killed");
      awaitCalls(calls, kill, OUTAGE, aViaB, "region 0's callers via region 1, database killed");
      long dbUp = System.nanoTime();
      regions[0].proxy().start();
      long dbBack = awaitFirst(calls, dbUp, aViaA, "region 0's callers back, database restored");
      awaitCalls(calls, dbUp + dbBack, STEADY, aViaA, "region 0's callers back, database restored");
      long end = System.nanoTime();
      for (RegionCallers c : callers) {
        c.stop();
      }

      check(calls, new long[] {t0, cut, linkUp, kill, dbUp, end});
      long[] all = IdChecks.assertAllDistinct(calls.stream().map(Call::ids).toArray(long[][]::new));
      long cutFailed = RegionCallers.count(calls, cut, linkUp + linkBack, c -> !c.ok());
      long killFailed = RegionCallers.count(calls, kill, dbUp + dbBack, c -> !c.ok());
      System.out.printf(
          "two regions in network namespaces: %d IDs, %d by region 0's server, %d by"
              + " region 1's; %d calls, %d failed; 0 repeats%n",
          all.length,
          issued(calls, 0),
          issued(calls, 1),
          calls.size(),
          calls.stream().filter(c -> !c.ok()).count());
      System.out.printf(
          "link cut: region 0's callers via region 1 after %d ms (%d calls failed);"
              + " back %d ms after the link returned%n",
          ms(cutFailover), cutFailed, ms(linkBack));
      System.out.printf(
          "database killed: via region 1 after %d ms (%d calls failed), region 0's"
              + " server answered %s; back %d ms after the database returned%n",
          ms(killFailover), killFailed, refusal, ms(dbBack));
      assertTrue(
          cutFailover < FAILOVER_BOUND.toNanos(),
          "failover after a cut link took "
              + ms(cutFailover)
              + " ms, more than "
              + FAILOVER_BOUND.toMillis());
      assertEquals(
          List.of(),
          calls.stream().filter(c -> !c.ok()).map(Call::failure).distinct().toList(),
          "calls that failed although region 1 answered throughout");
    } finally {
      for (RegionCallers c : callers) {
        c.stop();
      }
      clients.forEach(LeafClient::close);
    }
  }

  /**
   * A client of region {@code home}'s callers: its own region's server first, then the other's.
   * Each target's channel marks the calls it answers ({@link RegionCallers#marker}); otherwise this
   * is {@code LeafClient.forTargets(List.of(home, other))}.
   */
  private static LeafClient client(Region[] regions, int home) {
    List<ManagedChannelBuilder<?>> builders = new ArrayList<>();
    for (int r : new int[] {home, 1 - home}) {
      builders.add(
          ManagedChannelBuilder.forTarget(regions[r].target())
              .usePlaintext()
              .intercept(RegionCallers.marker(r)));
    }
    return LeafClient.forChannelBuilders(builders)
        .deadline(DEADLINE)
        .failoverAfter(FAILOVER_AFTER)
        .retryPreferredAfter(RETRY_PREFERRED_AFTER)
        .build();
  }

  /**
   * Polls a client of region 0's server alone until it answers UNAVAILABLE; its description. The
   * IDs it gets on the way join {@code calls} (as no region's callers').
   */
  private static String awaitUnavailable(Region a, ConcurrentLinkedQueue<Call> calls)
      throws InterruptedException {
    try (LeafClient alone =
        LeafClient.forTarget(a.target()).maxAttempts(1).deadline(DEADLINE).build()) {
      Optional<String> refusal =
          Poll.value(
              () -> {
                try {
                  long id = alone.nextId(TAG);
                  calls.add(new Call(-1, 0, System.nanoTime(), new long[] {id}, null));
                  return Optional.<String>empty();
                } catch (LeafException e) {
                  return e.code() == Status.Code.UNAVAILABLE
                      ? Optional.of("UNAVAILABLE (" + e.description() + ")")
                      : Optional.<String>empty();
                }
              },
              PHASE_LIMIT);
      assertTrue(
          refusal.isPresent(),
          "region 0's server answered UNAVAILABLE once its database"
              + " was gone and its buffers ran dry");
      return refusal.get();
    }
  }

  /** Nanoseconds from {@code since} to the first call matching {@code which} that succeeded. */
  private static long awaitFirst(
      ConcurrentLinkedQueue<Call> calls, long since, Predicate<Call> which, String what)
      throws InterruptedException {
    Predicate<Call> ok = c -> c.ok() && which.test(c);
    assertTrue(
        Poll.until(() -> RegionCallers.firstAfter(calls, since, ok) != null, PHASE_LIMIT),
        what + " within " + PHASE_LIMIT.toSeconds() + " s");
    return RegionCallers.firstAfter(calls, since, ok).endNanos() - since;
  }

  /**
   * Waits until {@link #CALLS_PER_PHASE} calls matching {@code which} succeeded since {@code
   * since}, region 1's server answered one of its own callers, and {@code atLeast} has passed: a
   * phase ends only once both servers served in it, however slow the machine.
   */
  private static void awaitCalls(
      ConcurrentLinkedQueue<Call> calls,
      long since,
      Duration atLeast,
      Predicate<Call> which,
      String what)
      throws InterruptedException {
    assertTrue(
        Poll.until(
            () ->
                System.nanoTime() - since >= atLeast.toNanos()
                    && RegionCallers.count(
                            calls, since, System.nanoTime() + 1, c -> c.ok() && which.test(c))
                        >= CALLS_PER_PHASE
                    && RegionCallers.count(
                            calls,
                            since,
                            System.nanoTime() + 1,
                            c -> c.ok() && c.home() == 1 && c.server() == 1)
                        > 0,
            PHASE_LIMIT),
        CALLS_PER_PHASE
            + " calls of "
            + what
            + ", and one of region 1's callers served by its own server, within "
            + PHASE_LIMIT.toSeconds()
            + " s");
  }

  /**
   * Every ID lies in the share of the region whose server issued it, and in every phase both
   * regions' callers got IDs and region 1's server issued.
   */
  private static void check(ConcurrentLinkedQueue<Call> calls, long[] phases) {
    LongPredicate[] share = {
      id -> id >= 1 && id < SHARE - 1, id -> id >= SHARE && id - SHARE < SHARE - 1
    };
    for (Call c : calls) {
      if (c.ok()) {
        assertTrue(c.server() == 0 || c.server() == 1, "a successful call has its server");
        assertTrue(
            RegionCallers.allIn(c, share[c.server()]),
            "IDs of region "
                + c.server()
                + "'s server lie in its share: "
                + Arrays.toString(c.ids()));
      }
    }
    for (int p = 0; p + 1 < phases.length; p++) {
      long from = phases[p];
      long to = phases[p + 1];
      for (int home = 0; home < 2; home++) {
        int h = home;
        assertTrue(
            RegionCallers.count(calls, from, to, c -> c.ok() && c.home() == h) > 0,
            "region " + home + "'s callers got IDs in phase " + p);
      }
      assertTrue(
          RegionCallers.count(calls, from, to, c -> c.ok() && c.server() == 1) > 0,
          "region 1's server issued in phase " + p);
    }
  }

  private static long issued(ConcurrentLinkedQueue<Call> calls, int server) {
    return calls.stream()
        .filter(c -> c.ok() && c.server() == server)
        .mapToLong(c -> c.ids().length)
        .sum();
  }

  private static long ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }
}
