package io.leaf.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.leaf.v1.ReservedIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The local cache of reserved ranges against a fake in-process LeafService. */
class CachedIdGeneratorTest {

  /** A ticker that moves only when told to. */
  static final class FakeTicker extends Ticker {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long read() {
      return nanos.get();
    }

    void advance(Duration d) {
      nanos.addAndGet(d.toNanos());
    }
  }

  private FakeLeafService service;
  private LeafClient client;
  private final List<CachedIdGenerator> generators = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    service = new FakeLeafService();
    client = LeafClient.forChannelBuilder(service.channelBuilder()).maxAttempts(1).build();
  }

  @AfterEach
  void tearDown() throws Exception {
    generators.forEach(CachedIdGenerator::close);
    client.close();
    service.close();
  }

  private CachedIdGenerator build(CachedIdGenerator.Builder b) {
    CachedIdGenerator g = b.build();
    generators.add(g);
    return g;
  }

  private CachedIdGenerator.Builder fixedBlocks(int size) {
    return CachedIdGenerator.builder(client, "order")
        .minBlockSize(size)
        .maxBlockSize(size)
        .maxWait(Duration.ofSeconds(10));
  }

  /** Polls a condition the test cannot be told about, up to 10 s. */
  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < end, "timed out waiting for: " + what);
      Thread.sleep(5);
    }
  }

  @Test
  void next_tenPercentOfReservationUsed_reservesNextOnce() throws Exception {
    CachedIdGenerator g = build(fixedBlocks(100));
    assertEquals(100, service.awaitReserveRequest(), "the first block is fetched at build");
    for (int i = 1; i <= 10; i++) {
      assertEquals(i, g.next(), "IDs come in block order");
    }
    assertEquals(1, g.refills(), "10 of 100 used: no second fetch yet");
    assertEquals(11, g.next());
    assertEquals(2, g.refills(), "taking the ID after the first 10% asks for the next block");
    assertEquals(100, service.awaitReserveRequest(), "and the server sees it");
    for (int i = 12; i <= 100; i++) {
      assertEquals(i, g.next());
    }
    assertEquals(2, g.refills(), "the rest of the block asks for nothing more");
    assertEquals(101, g.next(), "the second block follows the first");
    assertEquals(
        List.of(100, 100),
        service.reserveCounts().stream().limit(2).toList(),
        "the first two fetches, of all: " + service.reserveCounts());
  }

  @Test
  void next_everyRangeUsed_waitsForReservationAndCountsWait() throws Exception {
    service.block();
    CachedIdGenerator g = build(fixedBlocks(10));
    assertNotNull(service.awaitReserveRequest(), "first fetch started");
    CompletableFuture<Long> first = CompletableFuture.supplyAsync(g::next);
    await("the caller to wait", () -> g.waits() == 1);
    assertFalse(first.isDone(), "nothing to hand out while the fetch is blocked");
    service.release();
    assertEquals(1L, first.get(10, TimeUnit.SECONDS), "the waiting caller gets the first ID");
    assertEquals(1, g.waits(), "one call had to wait");
    assertEquals(
        1, g.refills(), "the waiting caller is served by the fetch in flight, not a new one");
  }

  @Test
  void next_noReservationWithinMaxWait_throwsIdWaitTimeout() throws Exception {
    service.block();
    CachedIdGenerator g = build(fixedBlocks(10).maxWait(Duration.ofMillis(100)));
    IdWaitTimeoutException e = assertThrows(IdWaitTimeoutException.class, g::next);
    assertEquals(Status.Code.DEADLINE_EXCEEDED, e.code(), e.getMessage());
    assertTrue(
        e.getMessage().contains("order") && e.getMessage().contains("100 ms"),
        "names the tag and the wait: " + e.getMessage());
    assertEquals(1, g.refills(), "the timed-out caller did not start a second fetch");
    service.release();
    long[] got = new long[1];
    await(
        "the fetch to land after the timeout",
        () -> {
          try {
            got[0] = g.next();
            return true;
          } catch (IdWaitTimeoutException stillFetching) {
            return false;
          }
        });
    assertEquals(1, got[0], "the fetch still lands afterwards");
  }

  @Test
  void next_fetchFails_throwsTypedErrorThenRecovers() throws Exception {
    service.fail(Status.NOT_FOUND.withDescription("biz_tag not found: order"));
    CachedIdGenerator g = build(fixedBlocks(10));
    TagNotFoundException e = assertThrows(TagNotFoundException.class, g::next);
    assertEquals("biz_tag not found: order", e.description());
    assertInstanceOf(
        TagNotFoundException.class, e.getCause(), "the failure of the refill thread is the cause");
    service.heal();
    assertEquals(1, g.next(), "a later call fetches again");
  }

  @Test
  void next_fetchThrowsError_internalErrorThenRecovers() throws Exception {
    // The Error is thrown only once the caller waits for that very fetch: a failure that ended
    // before the caller arrived is not its fetch, and the caller would rightly fetch again.
    CountDownLatch callerWaits = new CountDownLatch(1);
    AtomicBoolean explode = new AtomicBoolean(true);
    ClientInterceptor oneError =
        new ClientInterceptor() {
          @Override
          public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
              MethodDescriptor<ReqT, RespT> m, CallOptions options, Channel next) {
            if (explode.getAndSet(false)) {
              awaitUninterruptibly(callerWaits);
              throw new AssertionError("no heap for the reservation");
            }
            return next.newCall(m, options);
          }
        };
    // The refill thread rethrows the Error after handing it to the waiting caller; its uncaught
    // report is captured here (and checked) instead of printed as a stack trace.
    Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
    List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
    try (LeafClient exploding =
        LeafClient.forChannelBuilder(service.channelBuilder().intercept(oneError))
            .maxAttempts(1)
            .build()) {
      CachedIdGenerator g =
          build(
              CachedIdGenerator.builder(exploding, "order")
                  .minBlockSize(10)
                  .maxBlockSize(10)
                  .maxWait(Duration.ofSeconds(10)));
      CompletableFuture<Long> first = CompletableFuture.supplyAsync(g::next);
      await("the caller to wait", () -> g.waits() == 1);
      callerWaits.countDown();
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> first.get(10, TimeUnit.SECONDS));
      LeafException cause = assertInstanceOf(LeafException.class, e.getCause(), "typed");
      assertEquals(Status.Code.INTERNAL, cause.code(), "an Error in the fetch is INTERNAL");
      assertEquals(1, g.next(), "the generator fetches again instead of waiting forever");
      await("the refill thread's Error to reach its handler", () -> !uncaught.isEmpty());
      assertEquals(
          "no heap for the reservation",
          uncaught.get(0).getMessage(),
          "the Error is rethrown on the refill thread, not swallowed");
    } finally {
      Thread.setDefaultUncaughtExceptionHandler(previous);
    }
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      assertTrue(latch.await(10, TimeUnit.SECONDS), "released");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void next_reservationOfThreeRanges_idsFollowRangesAndRefillPointInSecond() throws Exception {
    service.splitRanges();
    CachedIdGenerator g = build(fixedBlocks(9).refillThreshold(0.5));
    assertEquals(9, service.awaitReserveRequest(), "first reservation");
    // Ranges [1, 4), [9, 12), [17, 20): the 50% point is the 5th ID, 10.
    long[] firstFour = {g.next(), g.next(), g.next(), g.next()};
    assertArrayEquals(new long[] {1, 2, 3, 9}, firstFour, "IDs follow the ranges, skipping gaps");
    assertEquals(1, g.refills(), "before the refill point: no second reservation");
    assertEquals(10, g.next());
    assertEquals(2, g.refills(), "the refill point sits in the second range");
    long[] rest = {g.next(), g.next(), g.next(), g.next()};
    assertArrayEquals(new long[] {11, 17, 18, 19}, rest, "then the third range");
    assertTrue(g.next() >= 20, "the next reservation follows");
  }

  @Test
  void nextRange_withinCurrentRange_blockThenNextContinuesAfterIt() throws Exception {
    CachedIdGenerator g = build(fixedBlocks(100));
    assertEquals(new IdRange(1, 31), g.nextRange(30), "30 IDs from the start");
    assertEquals(31, g.next(), "next() continues after the block");
    assertEquals(
        new IdRange(32, 101),
        g.nextRange(500),
        "at most what the current range holds: the caller asks again for the rest");
    IdRange after = g.nextRange(5);
    assertEquals(5, after.size(), "the next reservation serves the next block");
    assertTrue(after.start() >= 101, "beyond the first reservation: " + after);
  }

  @Test
  void nextRange_notPositive_rejectedNamingValue() {
    CachedIdGenerator g = build(fixedBlocks(10));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> g.nextRange(0));
    assertTrue(e.getMessage().contains("0"), e.getMessage());
  }

  @Test
  void ranges_replyOverlappingOrShort_internal() {
    ReservedIds overlapping =
        ReservedIds.newBuilder()
            .addRanges(io.leaf.v1.IdRange.newBuilder().setStart(1).setEnd(10))
            .addRanges(io.leaf.v1.IdRange.newBuilder().setStart(5).setEnd(8))
            .build();
    LeafException e = assertThrows(LeafException.class, () -> ReplyRanges.checked(overlapping, 12));
    assertEquals(Status.Code.INTERNAL, e.code(), e.getMessage());
    ReservedIds shortReply =
        ReservedIds.newBuilder()
            .addRanges(io.leaf.v1.IdRange.newBuilder().setStart(1).setEnd(10))
            .build();
    e = assertThrows(LeafException.class, () -> ReplyRanges.checked(shortReply, 10));
    assertTrue(e.getMessage().contains("9") && e.getMessage().contains("10"), e.getMessage());
  }

  @Test
  void blockSize_followsConsumptionRate_withFakeClock() throws Exception {
    FakeTicker ticker = new FakeTicker();
    CachedIdGenerator g =
        build(
            CachedIdGenerator.builder(client, "order")
                .minBlockSize(100)
                .maxBlockSize(100_000)
                .targetRefillInterval(Duration.ofSeconds(10))
                .ticker(ticker)
                .maxWait(Duration.ofSeconds(10)));
    assertEquals(100, g.blockSize(), "starts at the minimum");
    take(g, 100);
    ticker.advance(Duration.ofSeconds(1));
    take(g, 1);
    assertEquals(1_000, g.blockSize(), "100 IDs in 1 s, 10 s target: 1,000");

    take(g, 99);
    ticker.advance(Duration.ofSeconds(100));
    take(g, 1);
    assertEquals(100, g.blockSize(), "100 IDs in 100 s wants 10: held at the minimum");

    take(g, 999);
    take(g, 1);
    assertEquals(100_000, g.blockSize(), "1,000 IDs in no time: the maximum");

    take(g, 99);
    take(g, 1);
    take(g, 99_999);
    ticker.advance(Duration.ofSeconds(20));
    take(g, 1);
    assertEquals(50_000, g.blockSize(), "100,000 IDs in 20 s: 50,000");
    assertEquals(
        List.of(100, 100, 1_000, 100, 100_000),
        service.reserveCounts().stream().limit(5).toList(),
        "each fetch asks for the size chosen when it starts; all: " + service.reserveCounts());
  }

  private static void take(CachedIdGenerator g, int n) {
    for (int i = 0; i < n; i++) {
      g.next();
    }
  }

  @Test
  void nextAndNextRange_concurrentCallersOverThreeRangeReplies_uniqueIds() throws Exception {
    service.splitRanges();
    CachedIdGenerator g =
        build(
            CachedIdGenerator.builder(client, "order")
                .minBlockSize(50)
                .maxBlockSize(5_000)
                .maxWait(Duration.ofSeconds(10)));
    int threads = 4;
    int perThread = 50_000;
    List<CompletableFuture<long[]>> runs = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      boolean blocks = t % 2 == 1;
      runs.add(
          CompletableFuture.supplyAsync(
              () -> {
                long[] ids = new long[perThread];
                for (int i = 0; i < perThread; ) {
                  if (blocks) {
                    IdRange r = g.nextRange(Math.min(7, perThread - i));
                    for (long id = r.start(); id < r.end(); id++) {
                      ids[i++] = id;
                    }
                  } else {
                    ids[i++] = g.next();
                  }
                }
                return ids;
              },
              runnable -> new Thread(runnable).start()));
    }
    long[] all = new long[threads * perThread];
    for (int t = 0; t < threads; t++) {
      long[] mine = runs.get(t).get(60, TimeUnit.SECONDS);
      for (int i = 1; i < mine.length; i++) {
        assertTrue(
            mine[i] > mine[i - 1],
            "thread " + t + "'s IDs increase: " + mine[i - 1] + " then " + mine[i]);
      }
      System.arraycopy(mine, 0, all, t * perThread, perThread);
    }
    Arrays.sort(all);
    for (int i = 1; i < all.length; i++) {
      assertTrue(all[i] != all[i - 1], "ID handed out twice: " + all[i]);
    }
  }

  @Test
  void close_stopsRefillThreadAndWakesWaiters() throws Exception {
    service.block();
    CachedIdGenerator g = build(fixedBlocks(10));
    CompletableFuture<Long> waiting = CompletableFuture.supplyAsync(g::next);
    await("the caller to wait", () -> g.waits() == 1);
    g.close();
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
    assertInstanceOf(IllegalStateException.class, e.getCause(), "the waiter learns of the close");
    assertThrows(IllegalStateException.class, g::next, "closed: no more IDs");
    await(
        "the refill thread to end",
        () ->
            Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("leaf-id-refill-order")));
  }

  @Test
  void close_cachedIdsUnused_laterGeneratorNeverRepeatsThem() throws Exception {
    CachedIdGenerator first = build(fixedBlocks(100));
    long[] before = {first.next(), first.next()};
    first.close();
    CachedIdGenerator second = build(fixedBlocks(100));
    long after = second.next();
    assertArrayEquals(new long[] {1, 2}, before);
    assertTrue(after > 100, "the first generator's cached block is skipped, not reused: " + after);
    assertEquals(
        List.of(100, 100),
        service.reserveCounts(),
        "one block each: the closed generator fetched nothing more");
  }

  @Test
  void builder_badValues_rejectedNamingValue() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CachedIdGenerator.builder(client, "order").minBlockSize(0).build());
    assertTrue(
        e.getMessage().contains("minBlockSize") && e.getMessage().contains("0"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                CachedIdGenerator.builder(client, "order")
                    .minBlockSize(10)
                    .maxBlockSize(5)
                    .build());
    assertTrue(e.getMessage().contains("got 10"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CachedIdGenerator.builder(client, "order").maxBlockSize(20_000_000).build());
    assertTrue(e.getMessage().contains("20000000"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CachedIdGenerator.builder(client, "order").refillThreshold(1.0));
    assertTrue(e.getMessage().contains("1.0"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CachedIdGenerator.builder(client, "order").maxWait(Duration.ZERO));
    assertTrue(e.getMessage().contains("maxWait"), e.getMessage());
  }
}
