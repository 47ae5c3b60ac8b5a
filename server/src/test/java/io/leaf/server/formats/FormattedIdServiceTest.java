package io.leaf.server.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.FormattedIdBatch;
import io.leaf.v1.FormattedIdParts;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.IdFormat;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ParseFormattedIdRequest;
import io.leaf.v1.Reset;
import io.leaf.v1.SetFormatRequest;
import io.leaf.v1.Tag;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The formatted-number RPCs end to end on an in-process server with a fake wall clock. */
class FormattedIdServiceTest {

  private final MemorySegmentStore store = new MemorySegmentStore();
  private final MemoryFormatStore formats = new MemoryFormatStore();
  private final FakeWallClock wall =
      new FakeWallClock(Instant.parse("2026-11-26T10:00:00Z").toEpochMilli());
  private InProcessLeaf leaf;

  private InProcessLeaf start(String... flags) throws Exception {
    leaf =
        new InProcessLeaf(
            store,
            Ticker.systemTicker(),
            EngineConfig.DEFAULTS,
            s -> s.formats(formats).wallClock(wall),
            flags);
    return leaf;
  }

  @AfterEach
  void stop() throws Exception {
    if (leaf != null) {
      leaf.close();
    }
  }

  private static IdFormat format(String pattern, Reset reset, String zone) {
    return IdFormat.newBuilder().setPattern(pattern).setReset(reset).setTimeZone(zone).build();
  }

  private String next(String tag) {
    return leaf.blocking
        .nextFormattedId(NextIdRequest.newBuilder().setBizTag(tag).build())
        .getValue();
  }

  @Test
  void dailyNumbers_showTheirDay_andStartAgainAtMidnightInTheTagsZone() throws Exception {
    start();
    Tag t =
        leaf.blocking.createTag(
            CreateTagRequest.newBuilder()
                .setBizTag("order")
                .setFormat(format("ORD-{yyyyMMdd}-{seq:6}", Reset.DAILY, "Asia/Shanghai"))
                .build());
    assertEquals("ORD-{yyyyMMdd}-{seq:6}", t.getFormat().getPattern());
    assertEquals("ORD-20261126-000001", next("order"));
    assertEquals("ORD-20261126-000002", next("order"));
    // 15:59:59 UTC is 23:59:59 in Shanghai; a second later it is the 27th there.
    wall.set(Instant.parse("2026-11-26T15:59:59Z").toEpochMilli());
    assertEquals("ORD-20261126-000003", next("order"));
    wall.advance(Duration.ofSeconds(1));
    assertEquals("ORD-20261127-000001", next("order"));
    assertTrue(store.getTag("order#20261126").isPresent());
    assertTrue(store.getTag("order#20261127").isPresent());
  }

  @Test
  void periodRows_startWithTheTagsStep_cappedAtOnePercentOfTheWidth() throws Exception {
    start();
    leaf.blocking.createTag(
        CreateTagRequest.newBuilder()
            .setBizTag("small")
            .setStep(50)
            .setFormat(format("{seq:6}", Reset.NEVER, ""))
            .build());
    leaf.blocking.createTag(
        CreateTagRequest.newBuilder()
            .setBizTag("big")
            .setStep(500_000)
            .setFormat(format("{seq:6}", Reset.NEVER, ""))
            .build());
    next("small");
    next("big");
    assertEquals(50, store.getTag("small#all").orElseThrow().step());
    assertEquals(10_000, store.getTag("big#all").orElseThrow().step());
  }

  @Test
  void nextPeriodsRow_isPreparedBeforeTheBoundary() throws Exception {
    start();
    leaf.blocking.createTag(
        CreateTagRequest.newBuilder()
            .setBizTag("inv")
            .setFormat(format("{yyyyMMdd}{seq:5}", Reset.DAILY, ""))
            .build());
    wall.set(Instant.parse("2026-11-26T23:59:00Z").toEpochMilli());
    next("inv");
    assertTrue(
        io.leaf.server.testing.Poll.until(
            () -> leaf.allocator.snapshot("inv#20261127").isPresent(), Duration.ofSeconds(5)));
    assertTrue(store.getTag("inv#20261127").isPresent());
  }

  @Test
  void aClockBehindALaterPeriod_createsNoEarlierRow() throws Exception {
    start();
    leaf.blocking.createTag(
        CreateTagRequest.newBuilder()
            .setBizTag("late")
            .setFormat(format("{yyyyMMdd}{seq:5}", Reset.DAILY, ""))
            .build());
    next("late");
    wall.advance(Duration.ofDays(-3));
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> next("late"));
    assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
    assertTrue(
        e.getStatus().getDescription().contains("clock is behind"), e.getStatus().getDescription());
    assertFalse(store.getTag("late#20261123").isPresent());
  }

  @Test
  void widthExhausted_isOutOfRange_namingTagPeriodAndWidth_neverALongerValue() throws Exception {
    start();
    leaf.blocking.createTag(
        CreateTagRequest.newBuilder()
            .setBizTag("tiny")
            .setFormat(format("T{seq:1}", Reset.NEVER, ""))
            .build());
    // Segments of one number each (1% of a 1-digit width, at least 1), loaded one at a time:
    // all 9 values, then OUT_OF_RANGE.
    Set<String> seen = new HashSet<>();
    StatusRuntimeException e = null;
    for (int i = 0; i < 12 && e == null; i++) {
      try {
        assertTrue(seen.add(next("tiny")));
      } catch (StatusRuntimeException refused) {
        e = refused;
      }
    }
    assertTrue(e != null, "no refusal after " + seen);
    assertEquals(Status.Code.OUT_OF_RANGE, e.getStatus().getCode());
    String m = e.getStatus().getDescription();
    assertTrue(m.contains("\"tiny\"") && m.contains("width of 1"), m);
    assertEquals(
        Status.Code.OUT_OF_RANGE,
        assertThrows(StatusRuntimeException.class, () -> next("tiny")).getStatus().getCode());
    assertEquals(9, seen.size(), seen.toString());
    assertTrue(seen.stream().allMatch(v -> v.length() == 2), seen.toString());
  }

  @Test
  void batchAndUnary_shareTheSequence_noRepeats() throws Exception {
    start();
    leaf.blocking.createTag(
        CreateTagRequest.newBuilder()
            .setBizTag("mix")
            .setStep(7)
            .setFormat(format("M{seq:8}{check:luhn}", Reset.NEVER, ""))
            .build());
    Set<String> seen = new HashSet<>();
    for (int round = 0; round < 20; round++) {
      assertTrue(seen.add(next("mix")));
      Iterator<FormattedIdBatch> it =
          leaf.blocking.nextFormattedIdBatch(
              NextIdBatchRequest.newBuilder()
                  .setBizTag("mix")
                  .setCount(250)
                  .setChunkSize(100)
                  .build());
      int got = 0;
      while (it.hasNext()) {
        for (String v : it.next().getValuesList()) {
          assertTrue(seen.add(v), "repeated " + v);
          got++;
        }
      }
      assertEquals(250, got);
    }
    assertEquals(20 * 251, seen.size());
    FormattedIdParts p =
        leaf.blocking.parseFormattedId(
            ParseFormattedIdRequest.newBuilder().setBizTag("mix").setValue(next("mix")).build());
    assertTrue(p.getCheckValid());
    assertTrue(p.getSequence() > 5000);
  }

  @Test
  void noFormat_isFailedPrecondition_andUnknownTag_notFound() throws Exception {
    start();
    leaf.blocking.createTag(CreateTagRequest.newBuilder().setBizTag("plain").build());
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> next("plain"));
    assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode());
    assertTrue(e.getStatus().getDescription().contains("plain"));
    StatusRuntimeException missing =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                leaf.blocking.setFormat(
                    SetFormatRequest.newBuilder()
                        .setBizTag("nope")
                        .setFormat(format("{seq:4}", Reset.NEVER, ""))
                        .build()));
    assertEquals(Status.Code.NOT_FOUND, missing.getStatus().getCode());
  }

  @Test
  void formatChange_afterNumbers_unsafeRefused_newPrefixAccepted() throws Exception {
    start();
    leaf.blocking.createTag(
        CreateTagRequest.newBuilder()
            .setBizTag("chg")
            .setFormat(format("A-{seq:6}", Reset.NEVER, ""))
            .build());
    // Before any number, any format may replace it.
    leaf.blocking.setFormat(
        SetFormatRequest.newBuilder()
            .setBizTag("chg")
            .setFormat(format("ORD-{seq:6}", Reset.NEVER, ""))
            .build());
    assertEquals("ORD-000001", next("chg"));
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                leaf.blocking.setFormat(
                    SetFormatRequest.newBuilder()
                        .setBizTag("chg")
                        .setFormat(format("ORD-{yy}{seq:4}", Reset.NEVER, ""))
                        .build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    assertTrue(e.getStatus().getDescription().contains("width"), e.getStatus().getDescription());
    Tag t =
        leaf.blocking.setFormat(
            SetFormatRequest.newBuilder()
                .setBizTag("chg")
                .setFormat(format("SO-{seq:6}", Reset.NEVER, ""))
                .build());
    assertEquals("SO-{seq:6}", t.getFormat().getPattern());
    assertEquals("SO-000002", next("chg"));
    assertEquals(
        "SO-{seq:6}",
        leaf.blocking
            .getTag(GetTagRequest.newBuilder().setBizTag("chg").build())
            .getTag()
            .getFormat()
            .getPattern());
  }

  @Test
  void invalidFormat_refusedAtCreate_andNothingCreated() throws Exception {
    start();
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                leaf.blocking.createTag(
                    CreateTagRequest.newBuilder()
                        .setBizTag("bad")
                        .setFormat(format("{yyyyMM}-{seq:6}", Reset.DAILY, ""))
                        .build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    assertFalse(store.getTag("bad").isPresent());
  }

  @Test
  void aPeriodRowsName_cannotCarryAFormat() throws Exception {
    start();
    leaf.blocking.createTag(
        CreateTagRequest.newBuilder()
            .setBizTag("o")
            .setFormat(format("{yyyyMMdd}{seq:4}", Reset.DAILY, ""))
            .build());
    next("o");
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                leaf.blocking.setFormat(
                    SetFormatRequest.newBuilder()
                        .setBizTag("o#20261126")
                        .setFormat(format("{seq:4}", Reset.NEVER, ""))
                        .build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    assertTrue(e.getStatus().getDescription().contains("'#'"), e.getStatus().getDescription());
  }

  @Test
  void opaque_withoutAKey_refusedAtSet() throws Exception {
    start();
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                leaf.blocking.createTag(
                    CreateTagRequest.newBuilder()
                        .setBizTag("op")
                        .setFormat(format("{seq:8:opaque}", Reset.NEVER, ""))
                        .build()));
    assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode());
    assertTrue(e.getStatus().getDescription().contains("--format-key-file"));
  }

  @Test
  void manyCallers_zeroRepeats() throws Exception {
    start();
    leaf.blocking.createTag(
        CreateTagRequest.newBuilder()
            .setBizTag("par")
            .setStep(3)
            .setFormat(format("P{yyyyMMdd}{seq:7}", Reset.DAILY, ""))
            .build());
    List<Thread> threads = new ArrayList<>();
    Set<String> all = java.util.concurrent.ConcurrentHashMap.newKeySet();
    java.util.concurrent.atomic.AtomicInteger dup = new java.util.concurrent.atomic.AtomicInteger();
    for (int i = 0; i < 8; i++) {
      Thread th =
          new Thread(
              () -> {
                for (int k = 0; k < 2_000; k++) {
                  if (!all.add(next("par"))) {
                    dup.incrementAndGet();
                  }
                }
              });
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) {
      th.join();
    }
    assertEquals(0, dup.get());
    assertEquals(16_000, all.size());
  }
}
