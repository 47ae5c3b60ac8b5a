package io.leaf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The counters a generator exposes for metrics: IDs served and left, refills and their failures.
 */
class CachedIdGeneratorStatsTest {

  private FakeLeafService service;
  private LeafClient client;
  private CachedIdGenerator generator;

  @BeforeEach
  void setUp() throws Exception {
    service = new FakeLeafService();
    client = LeafClient.forChannelBuilder(service.channelBuilder()).maxAttempts(1).build();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (generator != null) {
      generator.close();
    }
    client.close();
    service.close();
  }

  /** Polls a counter the generator's refill thread moves, up to 10 s. */
  private static void awaitAtLeast(String what, LongSupplier counter, long min)
      throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (counter.getAsLong() < min && System.nanoTime() < end) {
      Thread.sleep(5);
    }
    assertTrue(
        counter.getAsLong() >= min,
        what + ": expected at least " + min + ", got " + counter.getAsLong());
  }

  @Test
  void idsServedAndLeft_afterTakingIds_sumToTheReservedIds() throws Exception {
    // A threshold of 0.9 keeps the 100 IDs taken below the refill point: one reservation only.
    generator =
        CachedIdGenerator.builder(client, "order")
            .minBlockSize(1_000)
            .maxBlockSize(1_000)
            .refillThreshold(0.9)
            .build();
    awaitAtLeast("IDs left once the first reservation arrived", generator::idsLeft, 1_000);

    for (int i = 0; i < 60; i++) {
      generator.next();
    }
    generator.nextRange(40);

    assertEquals(100, generator.idsServed(), "IDs served after 60 next() and a range of 40");
    assertEquals(900, generator.idsLeft(), "IDs left of the one reservation of 1000");
    assertEquals(1, generator.refills(), "reservations asked for");
    assertEquals(0, generator.refillFailures(), "no reservation failed");
  }

  @Test
  void idsServed_afterClose_doesNotCountTheDroppedIds() throws Exception {
    generator =
        CachedIdGenerator.builder(client, "order")
            .minBlockSize(500)
            .maxBlockSize(500)
            .refillThreshold(0.9)
            .build();
    generator.next();
    generator.next();

    generator.close();

    assertEquals(2, generator.idsServed(), "IDs served stays at the IDs handed out");
    assertEquals(0, generator.idsLeft(), "a closed generator caches nothing");
  }

  @Test
  void refillFailures_whenTheServerRefuses_counted() throws Exception {
    service.failTimes(Status.UNAVAILABLE.withDescription("database down"), 1);
    generator =
        CachedIdGenerator.builder(client, "order")
            .minBlockSize(100)
            .maxBlockSize(100)
            .maxWait(Duration.ofSeconds(10))
            .build();

    awaitAtLeast("failed reservations", generator::refillFailures, 1);
    // A failure that happened before the call came is not its answer: it starts a fetch, which
    // the server now answers.
    long id = generator.next();

    assertEquals(1, generator.refillFailures(), "only the first reservation failed");
    assertEquals(1, generator.idsServed(), "the one ID handed out, " + id);
    assertEquals(99, generator.idsLeft(), "the rest of the reservation of 100");
  }
}
