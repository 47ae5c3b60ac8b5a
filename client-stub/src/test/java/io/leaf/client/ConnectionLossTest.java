package io.leaf.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import org.junit.jupiter.api.Test;

/** Which statuses are the transport's report of a lost connection, as grpc-java gives them. */
class ConnectionLossTest {

  @Test
  void lost_unknownChannelClosedOrIoCause_true() {
    assertTrue(
        ConnectionLoss.lost(
            Status.UNKNOWN
                .withDescription("channel closed")
                .withCause(new ClosedChannelException())),
        "grpc-java's closed channel");
    assertTrue(
        ConnectionLoss.lost(Status.UNKNOWN.withDescription("channel closed")),
        "the description alone (the cause is not always kept)");
    assertTrue(
        ConnectionLoss.lost(
            Status.UNKNOWN.withCause(
                new RuntimeException(new IOException("Connection reset by peer")))),
        "an IO cause");
    assertTrue(
        ConnectionLoss.lost(Status.UNKNOWN.withDescription("Connection reset by peer")),
        "a reset named");
    assertTrue(
        ConnectionLoss.lost(Status.UNAVAILABLE.withDescription("io exception")),
        "UNAVAILABLE as before");
  }

  @Test
  void lost_serverAnswers_false() {
    assertFalse(
        ConnectionLoss.lost(Status.UNKNOWN.withDescription("boom")),
        "a server's UNKNOWN is an answer");
    assertFalse(ConnectionLoss.lost(Status.UNKNOWN), "UNKNOWN without a description");
    assertFalse(
        ConnectionLoss.lost(Status.INTERNAL.withCause(new IOException("x"))),
        "only UNKNOWN and UNAVAILABLE");
    assertFalse(ConnectionLoss.lost(Status.NOT_FOUND.withDescription("channel closed")));
  }
}
