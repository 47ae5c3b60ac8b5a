package io.leaf.server.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.testing.IdChecks;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.server.wiring.LeafServerBuilder;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.FormattedIdBatch;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.IdFormat;
import io.leaf.v1.IdRange;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.Reset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two regions, each its own server on its own database (H2), issuing side by side through every way
 * an ID leaves — NextId, NextIdBatch, ReserveIds and formatted numbers — while their steps grow: no
 * ID repeats across both, and each lies in its region's share.
 */
class TwoRegionsTest {

  private static final long SHARE = 1L << 62;

  /** Rounds of mixed calls per worker thread. */
  private static final int ROUNDS = 150;

  /** A region's server over the production wiring, on the in-process transport. */
  private record RegionServer(
      LeafServer server, ManagedChannel channel, LeafServiceGrpc.LeafServiceBlockingStub leaf)
      implements AutoCloseable {

    static RegionServer start(TestDatabase db, String region) throws Exception {
      ServerConfig config =
          ServerConfig.parse(
              new String[] {
                "--db-url",
                db.url,
                "--db-user",
                db.user,
                "--db-password",
                db.password,
                "--db-pool-size",
                "2",
                "--region",
                region
              },
              env -> null);
      String name = InProcessServerBuilder.generateName();
      LeafServer server =
          LeafServerBuilder.forConfig(config)
              .transport(InProcessServerBuilder.forName(name))
              .build()
              .start();
      ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
      return new RegionServer(server, channel, LeafServiceGrpc.newBlockingStub(channel));
    }

    LeafServiceGrpc.LeafServiceBlockingStub call() {
      return leaf.withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
      channel.shutdownNow();
      server.stop();
    }
  }

  /** What one region issued. */
  private static final class Issued {
    final List<long[]> ids = new ArrayList<>();
    final Set<String> formatted = ConcurrentHashMap.newKeySet();
    long nextId;
    long batch;
    long reserved;
    long formattedCount;
  }

  @Test
  @Timeout(120)
  void twoRegions_everyWayIdsLeave_concurrently_noRepeats_eachInItsShare() throws Exception {
    try (TestDatabase dbA = TestDatabases.h2();
        TestDatabase dbB = TestDatabases.h2();
        RegionServer a = RegionServer.start(dbA, "0/2");
        RegionServer b = RegionServer.start(dbB, "1/2")) {
      RegionServer[] regions = {a, b};
      for (RegionServer r : regions) {
        // The same requests in both regions, as one script would send them.
        r.call().createTag(CreateTagRequest.newBuilder().setBizTag("order").setStep(10).build());
        r.call()
            .createTag(
                CreateTagRequest.newBuilder()
                    .setBizTag("invoice")
                    .setStep(10)
                    .setFormat(
                        IdFormat.newBuilder().setPattern("INV-{seq:9}").setReset(Reset.NEVER))
                    .build());
      }

      Issued[] issued = {new Issued(), new Issued()};
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<?>> work = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        for (int thread = 0; thread < 2; thread++) {
          RegionServer r = regions[i];
          Issued out = issued[i];
          work.add(
              pool.submit(
                  () -> {
                    issue(r, out);
                    return null;
                  }));
        }
      }
      for (Future<?> f : work) {
        f.get(100, TimeUnit.SECONDS);
      }
      pool.shutdown();

      long[] all =
          IdChecks.assertAllDistinct(
              IdChecks.assertAllDistinct(issued[0].ids.toArray(long[][]::new)),
              IdChecks.assertAllDistinct(issued[1].ids.toArray(long[][]::new)));
      for (int i = 0; i < 2; i++) {
        long base = i * SHARE;
        for (long[] part : issued[i].ids) {
          for (long id : part) {
            assertTrue(
                id >= base && id < base + SHARE - 1,
                "ID " + id + " of region " + i + "/2 lies in its share");
          }
        }
        Set<String> values = issued[i].formatted;
        assertEquals(issued[i].formattedCount, values.size(), "formatted numbers of region " + i);
        for (String v : values) {
          long seq = Long.parseLong(v.substring("INV-".length()));
          assertEquals(i + 1, (seq - 1) % 2 + 1, v + " of region " + i + " shows its residue");
        }
        int grown =
            regions[i]
                .call()
                .getTag(GetTagRequest.newBuilder().setBizTag("order").build())
                .getEffectiveStep();
        assertTrue(grown > 10, "region " + i + "'s step grew: " + grown);
      }
      Set<String> both = new HashSet<>(issued[0].formatted);
      both.retainAll(issued[1].formatted);
      assertEquals(Set.of(), both, "no formatted number shown by both regions");
      System.out.printf(
          "two regions: %d IDs (NextId %d, NextIdBatch %d, ReserveIds %d) and %d"
              + " formatted numbers, 0 repeats%n",
          all.length,
          issued[0].nextId + issued[1].nextId,
          issued[0].batch + issued[1].batch,
          issued[0].reserved + issued[1].reserved,
          issued[0].formattedCount + issued[1].formattedCount);
    }
  }

  /** Mixed calls on one region's server; every ID and number goes into {@code out}. */
  private static void issue(RegionServer r, Issued out) {
    for (int round = 0; round < ROUNDS; round++) {
      long[] single = new long[5];
      for (int k = 0; k < single.length; k++) {
        single[k] = r.call().nextId(NextIdRequest.newBuilder().setBizTag("order").build()).getId();
      }
      List<Long> streamed = new ArrayList<>();
      r.call()
          .nextIdBatch(
              NextIdBatchRequest.newBuilder()
                  .setBizTag("order")
                  .setCount(40)
                  .setChunkSize(16)
                  .build())
          .forEachRemaining((IdBatch c) -> streamed.addAll(c.getIdsList()));
      List<Long> reserved = new ArrayList<>();
      for (IdRange range :
          r.call()
              .reserveIds(ReserveIdsRequest.newBuilder().setBizTag("order").setCount(60).build())
              .getRangesList()) {
        for (long id = range.getStart(); id < range.getEnd(); id++) {
          reserved.add(id);
        }
      }
      List<String> values = new ArrayList<>();
      values.add(
          r.call()
              .nextFormattedId(NextIdRequest.newBuilder().setBizTag("invoice").build())
              .getValue());
      r.call()
          .nextFormattedIdBatch(
              NextIdBatchRequest.newBuilder().setBizTag("invoice").setCount(7).build())
          .forEachRemaining((FormattedIdBatch c) -> values.addAll(c.getValuesList()));
      synchronized (out) {
        out.ids.add(single);
        out.ids.add(streamed.stream().mapToLong(Long::longValue).toArray());
        out.ids.add(reserved.stream().mapToLong(Long::longValue).toArray());
        out.nextId += single.length;
        out.batch += streamed.size();
        out.reserved += reserved.size();
        out.formattedCount += values.size();
        out.formatted.addAll(values);
        assertEquals(60, reserved.size());
        assertEquals(40, streamed.size());
        assertEquals(8, values.size());
        assertTrue(Arrays.stream(single).allMatch(id -> id > 0));
      }
    }
  }
}
