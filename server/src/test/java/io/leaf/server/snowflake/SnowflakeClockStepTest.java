package io.leaf.server.snowflake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.store.DataSources;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.server.testing.TestServer;
import io.leaf.v1.GetWorkerRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.NextSnowflakeIdBatchRequest;
import io.leaf.v1.NextSnowflakeIdRequest;
import io.leaf.v1.SnowflakeServiceGrpc;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real server (gRPC in process, the real monotonic clock, leases on H2 or MariaDB) whose wall
 * clock is the system's plus an offset the test steps back by 30 s in the middle of unary and
 * stream load, as an NTP step does: no ID may repeat and no call may fail.
 */
@Tag("slow")
class SnowflakeClockStepTest {

  /** The system clock plus an offset that can be stepped. */
  private static final class SteppedClock implements InstantSource {
    final AtomicLong offsetMs = new AtomicLong();

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis());
    }

    @Override
    public long millis() {
      return System.currentTimeMillis() + offsetMs.get();
    }
  }

  @Test
  @Timeout(120)
  void wallClockStepsBack30sUnderLoad_h2_zeroRepeatsAndKeepsAnswering() throws Exception {
    stepBackUnderLoad(TestDatabases::h2);
  }

  @Test
  @Timeout(120)
  void wallClockStepsBack30sUnderLoad_mariaDb_zeroRepeatsAndKeepsAnswering() throws Exception {
    stepBackUnderLoad(TestDatabases::mariaDb);
  }

  private void stepBackUnderLoad(Supplier<TestDatabase> database) throws Exception {
    SteppedClock wall = new SteppedClock();
    try (TestDatabase db = database.get()) {
      ServerConfig config =
          ServerConfig.parse(new String[] {"--worker-lease-ttl", "5s"}, env -> null);
      JooqWorkerLeaseStore leases =
          new JooqWorkerLeaseStore(db.pool(2), DataSources.dialectOf(db.url), wall);
      Snowflake snowflake =
          new Snowflake(
              leases,
              config.idSpace().snowflake().layout(),
              new Snowflake.Workers(0, 1023, config.idSpace().snowflake().leaseTtl()),
              new Snowflake.Clocks(wall, Ticker.systemTicker()),
              new Snowflake.Threads(
                  Executors.newSingleThreadScheduledExecutor(),
                  Executors.newSingleThreadScheduledExecutor()));
      String name = InProcessServerBuilder.generateName();
      LeafServer server =
          TestServer.inProcess(name).flags("--worker-lease-ttl", "5s").snowflake(snowflake).start();
      ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
      try {
        var stub = SnowflakeServiceGrpc.newBlockingStub(channel);
        Poll.until(
            () -> stub.getWorker(GetWorkerRequest.getDefaultInstance()).getWorkerId() >= 0,
            Duration.ofSeconds(15));
        ConcurrentLinkedQueue<Long> ids = new ConcurrentLinkedQueue<>();
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger afterStep = new AtomicInteger();
        AtomicBoolean stepped = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 5; t++) {
          boolean streams = t == 0;
          Thread thread =
              new Thread(
                  () -> {
                    while (!stop.get()) {
                      try {
                        if (streams) {
                          var it =
                              stub.nextSnowflakeIdBatch(
                                  NextSnowflakeIdBatchRequest.newBuilder()
                                      .setCount(50_000)
                                      .build());
                          while (it.hasNext()) {
                            IdBatch b = it.next();
                            ids.addAll(b.getIdsList());
                          }
                        } else {
                          ids.add(
                              stub.nextSnowflakeId(NextSnowflakeIdRequest.getDefaultInstance())
                                  .getId());
                        }
                        if (stepped.get()) {
                          afterStep.incrementAndGet();
                        }
                      } catch (StatusRuntimeException e) {
                        failures.incrementAndGet();
                      }
                    }
                  });
          thread.start();
          threads.add(thread);
        }
        assertTrue(
            Poll.until(() -> ids.size() >= 5_000, Duration.ofSeconds(60)),
            "serving before the step: " + ids.size());
        long expiresBefore =
            stub.getWorker(GetWorkerRequest.getDefaultInstance()).getLeaseExpiresMs();
        wall.offsetMs.addAndGet(-Duration.ofSeconds(30).toMillis());
        stepped.set(true);
        // Calls after the step, and two renewals of the lease after it (the lease table reads the
        // stepped clock too): each renewal reports a new expiry.
        assertTrue(
            Poll.until(() -> afterStep.get() > 500, Duration.ofSeconds(60)),
            "calls after the step: " + afterStep.get());
        long[] expiry = {expiresBefore, 0};
        assertTrue(
            Poll.until(
                () -> {
                  long now =
                      stub.getWorker(GetWorkerRequest.getDefaultInstance()).getLeaseExpiresMs();
                  if (now != expiry[0]) {
                    expiry[0] = now;
                    expiry[1]++;
                  }
                  return expiry[1] >= 2;
                },
                Duration.ofSeconds(30)),
            "the lease renewed twice after the step");
        stop.set(true);
        for (Thread t : threads) {
          t.join(30_000);
        }
        long ahead = stub.getWorker(GetWorkerRequest.getDefaultInstance()).getAheadOfWallClockMs();
        Set<Long> seen = new HashSet<>();
        int duplicates = 0;
        for (long id : ids) {
          if (!seen.add(id)) {
            duplicates++;
          }
        }
        System.out.printf(
            "[snowflake] wall clock stepped back 30 s under load (%s): %d IDs,"
                + " %d calls after the step, %d failed calls, %d duplicates, ID time %d ms ahead%n",
            db.name == null ? "H2" : "MariaDB",
            ids.size(),
            afterStep.get(),
            failures.get(),
            duplicates,
            ahead);
        assertEquals(0, duplicates, "no ID twice");
        assertEquals(0, failures.get(), "no call failed");
        assertTrue(afterStep.get() > 100, "kept answering after the step: " + afterStep.get());
        assertTrue(ahead > 25_000, "the ID time runs about 30 s ahead: " + ahead);
      } finally {
        channel.shutdownNow();
        server.stop();
      }
    }
  }
}
