package io.leaf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ParseFormattedIdRequest;
import io.leaf.v1.Reset;
import io.leaf.v1.SetFormatRequest;
import io.leaf.v1.Tag;
import java.time.ZoneId;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The formatted-ID calls: requests sent, replies read, streams checked, statuses typed. */
class LeafClientFormatTest {

  private FakeFormatService service;
  private LeafClient client;

  @BeforeEach
  void setUp() throws Exception {
    service = new FakeFormatService();
    client = LeafClient.forChannelBuilder(service.channelBuilder()).build();
  }

  @AfterEach
  void tearDown() throws Exception {
    client.close();
    service.close();
  }

  @Test
  void nextFormattedId_returnsTheServersValueForTheTag() {
    assertEquals("ORD-0001", client.nextFormattedId("order"));
    assertEquals("ORD-0002", client.nextFormattedId("order"));
    assertEquals(NextIdRequest.newBuilder().setBizTag("order").build(), service.requests().get(0));
  }

  @Test
  void nextFormattedIds_manyChunks_allInOrderAndUnmodifiable() {
    List<String> values = client.nextFormattedIds("order", 2_500);
    List<String> expected =
        IntStream.rangeClosed(1, 2_500).mapToObj(i -> String.format("ORD-%04d", i)).toList();
    assertEquals(expected, values, "three streamed chunks joined in order");
    assertEquals(
        NextIdBatchRequest.newBuilder().setBizTag("order").setCount(2_500).build(),
        service.requests().get(0));
    assertThrows(UnsupportedOperationException.class, () -> values.add("ORD-9999"));
  }

  @Test
  void nextFormattedIds_streamShortOrLong_internalError() {
    service.streamExtra(-3);
    LeafException e = assertThrows(LeafException.class, () -> client.nextFormattedIds("o", 10));
    assertEquals(Status.Code.INTERNAL, e.code());
    assertTrue(e.getMessage().contains("7 IDs, 10 asked for"), e.getMessage());

    service.streamExtra(1);
    e = assertThrows(LeafException.class, () -> client.nextFormattedIds("o", 10));
    assertEquals(Status.Code.INTERNAL, e.code());
    assertTrue(e.getMessage().contains("more than the 10"), e.getMessage());
  }

  @Test
  void nextFormattedIds_widthPassedMidStream_outOfRange() {
    service.failAfterFirstChunk(
        Status.OUT_OF_RANGE.withDescription(
            "biz_tag order: period 20261126 passed the 4-digit sequence"));
    OutOfRangeException e =
        assertThrows(OutOfRangeException.class, () -> client.nextFormattedIds("order", 2_500));
    assertTrue(e.description().contains("20261126"), e.description());
  }

  @Test
  void parseFormattedId_sendsValue_readsPeriodSequenceAndCheck() {
    service.parseAnswer(
        io.leaf.v1.FormattedIdParts.newBuilder()
            .setPeriod("20261126")
            .setSequence(457)
            .setCheckValid(true)
            .build());
    FormattedIdParts parts = client.parseFormattedId("order", "ORD-20261126-0004577");
    assertEquals(new FormattedIdParts("20261126", OptionalLong.of(457), true), parts);
    assertEquals(
        ParseFormattedIdRequest.newBuilder()
            .setBizTag("order")
            .setValue("ORD-20261126-0004577")
            .build(),
        service.requests().get(0));
  }

  @Test
  void parseFormattedId_hiddenSequence_emptyAndBadCheckReported() {
    service.parseAnswer(
        io.leaf.v1.FormattedIdParts.newBuilder()
            .setPeriod("")
            .setSequence(-1)
            .setCheckValid(false)
            .build());
    FormattedIdParts parts = client.parseFormattedId("order", "ORD-8391047");
    assertEquals(OptionalLong.empty(), parts.sequence(), "-1 on the wire: hidden, not a number");
    assertEquals("", parts.period());
    assertFalse(parts.checkValid());
  }

  @Test
  void parseFormattedId_sequenceZero_isANumberNotHidden() {
    service.parseAnswer(io.leaf.v1.FormattedIdParts.newBuilder().setSequence(0).build());
    assertEquals(OptionalLong.of(0), client.parseFormattedId("order", "ORD-0000").sequence());
  }

  @Test
  void setFormat_sendsPatternResetAndZone_returnsTheTag() {
    IdFormat format =
        IdFormat.of("ORD-{yyyyMMdd}-{seq:6}{check:luhn}")
            .withReset(IdFormat.Reset.DAILY)
            .withTimeZone(ZoneId.of("Europe/Berlin"));
    Tag tag = client.setFormat("order", format);
    io.leaf.v1.IdFormat sent =
        io.leaf.v1.IdFormat.newBuilder()
            .setPattern("ORD-{yyyyMMdd}-{seq:6}{check:luhn}")
            .setReset(Reset.DAILY)
            .setTimeZone("Europe/Berlin")
            .build();
    assertEquals(
        SetFormatRequest.newBuilder().setBizTag("order").setFormat(sent).build(),
        service.requests().get(0));
    assertEquals(sent, tag.getFormat());
  }

  @Test
  void idFormatOf_neverResetInUtc() {
    IdFormat format = IdFormat.of("INV-{seq:8}");
    assertEquals(IdFormat.Reset.NEVER, format.reset());
    io.leaf.v1.IdFormat proto = format.toProto();
    assertEquals(Reset.NEVER, proto.getReset());
    assertEquals("UTC", proto.getTimeZone(), "an IANA name, not the offset id Z");
    assertThrows(NullPointerException.class, () -> format.withTimeZone(null));
  }

  @Test
  void idFormatReset_everyValueHasAProtoCounterpart() {
    for (IdFormat.Reset r : IdFormat.Reset.values()) {
      assertEquals(r.name(), IdFormat.of("{seq:4}").withReset(r).toProto().getReset().name());
    }
  }

  @Test
  void createTag_withFormat_sendsIt_withoutFormat_sendsNone() {
    Tag tag = client.createTag("inv", 0, 100, "invoices", IdFormat.of("INV-{seq:8}"));
    assertEquals("INV-{seq:8}", tag.getFormat().getPattern());
    client.createTag("plain", 0, 100, "plain ids");
    CreateTagRequest withFormat = (CreateTagRequest) service.requests().get(0);
    CreateTagRequest without = (CreateTagRequest) service.requests().get(1);
    assertEquals("INV-{seq:8}", withFormat.getFormat().getPattern());
    assertEquals("invoices", withFormat.getDescription());
    assertFalse(without.hasFormat(), "a tag created without a format has none");
  }

  static Stream<Arguments> statuses() {
    return Stream.of(
        Arguments.of(Status.Code.FAILED_PRECONDITION, FailedPreconditionException.class),
        Arguments.of(Status.Code.OUT_OF_RANGE, OutOfRangeException.class),
        Arguments.of(Status.Code.INVALID_ARGUMENT, InvalidArgumentException.class),
        Arguments.of(Status.Code.NOT_FOUND, TagNotFoundException.class),
        Arguments.of(Status.Code.PERMISSION_DENIED, LeafException.class),
        Arguments.of(Status.Code.UNAUTHENTICATED, LeafException.class));
  }

  @ParameterizedTest
  @MethodSource("statuses")
  void everyFormattedCall_failedStatus_typedExceptionWithCodeAndDescription(
      Status.Code code, Class<? extends LeafException> type) {
    List<Consumer<LeafClient>> calls =
        List.of(
            c -> c.nextFormattedId("order"),
            c -> c.nextFormattedIds("order", 5),
            c -> c.parseFormattedId("order", "ORD-1"),
            c -> c.setFormat("order", IdFormat.of("ORD-{seq:4}")),
            c -> c.createTag("order", 0, 0, null, IdFormat.of("ORD-{seq:4}")));
    service.failTimes(Status.fromCode(code).withDescription("biz_tag order: " + code), 99);
    for (Consumer<LeafClient> call : calls) {
      LeafException e = assertThrows(LeafException.class, () -> call.accept(client));
      assertSame(type, e.getClass(), "the type of " + code);
      assertEquals(code, e.code());
      assertEquals("biz_tag order: " + code, e.description());
    }
    assertEquals(calls.size(), service.calls(), "no status but UNAVAILABLE is retried");
  }

  @Test
  void formattedCalls_unavailableOnce_retriedByTheChannel() {
    service.failTimes(Status.UNAVAILABLE.withDescription("database unavailable"), 1);
    assertEquals("ORD-0001", client.nextFormattedId("order"), "the retry succeeds");
    service.failTimes(Status.UNAVAILABLE.withDescription("database unavailable"), 1);
    assertEquals(List.of("ORD-0002", "ORD-0003"), client.nextFormattedIds("order", 2));
    service.failTimes(Status.UNAVAILABLE.withDescription("database unavailable"), 1);
    client.setFormat("order", IdFormat.of("ORD-{seq:4}"));
    assertEquals(6, service.calls(), "three failed attempts, three that worked");
  }
}
