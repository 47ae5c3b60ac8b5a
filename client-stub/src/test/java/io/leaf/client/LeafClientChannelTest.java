package io.leaf.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client's channel handling: gRPC's retry policy, deadlines, ownership, short streams. */
class LeafClientChannelTest {

  private FakeLeafService service;

  @BeforeEach
  void setUp() throws Exception {
    service = new FakeLeafService();
  }

  @AfterEach
  void tearDown() throws Exception {
    service.close();
  }

  @Test
  void nextId_unavailableTwice_retriedByChannelAndSucceeds() {
    service.failTimes(Status.UNAVAILABLE.withDescription("database unavailable"), 2);
    try (LeafClient client = LeafClient.forChannelBuilder(service.channelBuilder()).build()) {
      assertEquals(1, client.nextId("order"), "the third attempt succeeds");
    }
    assertEquals(3, service.calls(), "two failed attempts and one that worked");
  }

  @Test
  void nextId_unavailableBeyondAttempts_leafUnavailableException() {
    service.fail(Status.UNAVAILABLE.withDescription("database unavailable"));
    try (LeafClient client =
        LeafClient.forChannelBuilder(service.channelBuilder()).maxAttempts(3).build()) {
      LeafUnavailableException e =
          assertThrows(LeafUnavailableException.class, () -> client.nextId("order"));
      assertEquals("database unavailable", e.description());
    }
    assertEquals(3, service.calls(), "maxAttempts bounds the attempts");
  }

  @Test
  void nextId_retriesOff_oneAttempt() {
    service.fail(Status.UNAVAILABLE.withDescription("database unavailable"));
    try (LeafClient client =
        LeafClient.forChannelBuilder(service.channelBuilder()).maxAttempts(1).build()) {
      assertThrows(LeafUnavailableException.class, () -> client.nextId("order"));
    }
    assertEquals(1, service.calls());
  }

  @Test
  void createTag_unavailable_notRetried() {
    service.failTimes(Status.UNAVAILABLE.withDescription("database unavailable"), 1);
    try (LeafClient client = LeafClient.forChannelBuilder(service.channelBuilder()).build()) {
      assertThrows(
          LeafUnavailableException.class, () -> client.createTag("order", 0, 100, "orders"));
    }
    assertEquals(
        1,
        service.calls(),
        "an insert that may have committed is not repeated (it would come back ALREADY_EXISTS)");
  }

  @Test
  void updateStep_unavailableOnce_retried() {
    service.failTimes(Status.UNAVAILABLE.withDescription("database unavailable"), 1);
    try (LeafClient client = LeafClient.forChannelBuilder(service.channelBuilder()).build()) {
      assertEquals(500, client.updateStep("order", 500).getStep(), "the retry succeeds");
    }
    assertEquals(2, service.calls(), "setting a step is safe to repeat");
  }

  @Test
  void nextId_notFound_notRetried() {
    service.fail(Status.NOT_FOUND.withDescription("biz_tag not found: order"));
    try (LeafClient client = LeafClient.forChannelBuilder(service.channelBuilder()).build()) {
      assertThrows(TagNotFoundException.class, () -> client.nextId("order"));
    }
    assertEquals(1, service.calls(), "only UNAVAILABLE is retried");
  }

  @Test
  void nextId_serverSlowerThanDeadline_deadlineExceeded() {
    service.block();
    try (LeafClient client =
        LeafClient.forChannelBuilder(service.channelBuilder())
            .deadline(Duration.ofMillis(100))
            .build()) {
      LeafDeadlineExceededException e =
          assertThrows(LeafDeadlineExceededException.class, () -> client.nextId("order"));
      assertEquals(Status.Code.DEADLINE_EXCEEDED, e.code());
    } finally {
      service.release();
    }
  }

  @Test
  void nextIds_streamShorterThanCount_internalError() {
    service.streamShortBy(3);
    try (LeafClient client = LeafClient.forChannelBuilder(service.channelBuilder()).build()) {
      LeafException e = assertThrows(LeafException.class, () -> client.nextIds("order", 10));
      assertEquals(Status.Code.INTERNAL, e.code());
      assertTrue(e.getMessage().contains("7 IDs, 10 asked for"), e.getMessage());
    }
  }

  @Test
  void nextIds_manyChunks_allInOrder() {
    try (LeafClient client = LeafClient.forChannelBuilder(service.channelBuilder()).build()) {
      long[] ids = client.nextIds("order", 2_500);
      long[] expected = new long[2_500];
      for (int i = 0; i < expected.length; i++) {
        expected[i] = i + 1;
      }
      assertArrayEquals(expected, ids, "three streamed chunks joined in order");
    }
  }

  @Test
  void close_ownChannelShutDown_givenChannelLeftOpen() {
    ManagedChannel given = service.channel();
    try {
      LeafClient.forChannel(given).build().close();
      assertFalse(given.isShutdown(), "a channel the caller gave stays open");
    } finally {
      given.shutdownNow();
    }
    LeafClient owning =
        LeafClient.forChannelBuilder(service.channelBuilder()).maxAttempts(1).build();
    owning.close();
    assertThrows(
        LeafUnavailableException.class,
        () -> owning.nextId("order"),
        "a channel the client built is shut down by close()");
  }

  @Test
  void builder_badValues_rejectedNamingValue() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LeafClient.forTarget("localhost:1").maxAttempts(6));
    assertTrue(e.getMessage().contains("got 6"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LeafClient.forTarget("localhost:1").deadline(Duration.ofSeconds(-1)));
    assertTrue(e.getMessage().contains("PT-1S"), e.getMessage());
  }
}
