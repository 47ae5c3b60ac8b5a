package io.leaf.server.http;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The connection clocks on Netty's embedded channel, whose time moves only when told to. */
class ConnectionTimeoutsTest {

  private static final Duration IDLE = Duration.ofSeconds(60);

  private final ConnectionTimeouts timeouts = new ConnectionTimeouts(Duration.ofSeconds(10), IDLE);
  private final EmbeddedChannel channel = channel();

  private EmbeddedChannel channel() {
    EmbeddedChannel c = new EmbeddedChannel();
    c.freezeTime();
    c.pipeline().addLast(timeouts);
    c.pipeline().fireChannelActive();
    return c;
  }

  private void elapse(Duration d) {
    channel.advanceTimeBy(d.toNanos(), TimeUnit.NANOSECONDS);
    channel.runScheduledPendingTasks();
  }

  @Test
  void answering_noClock_connectionStaysOpenPastIdleTimeout() {
    timeouts.requestReceived();
    elapse(IDLE.multipliedBy(3));
    assertTrue(channel.isOpen(), "a request waiting for its answer is bounded by --max-wait");
  }

  @Test
  void writing_answerNeverReachesTheSocket_closedAfterIdleTimeout() {
    timeouts.requestReceived();
    timeouts.writing();
    elapse(IDLE.minusSeconds(1));
    assertTrue(channel.isOpen(), "not before the idle timeout");
    elapse(Duration.ofSeconds(2));
    assertFalse(channel.isOpen(), "a client that does not read its answer loses the connection");
  }

  @Test
  void writing_pipelinedRequestArrives_writeClockKeepsRunning() {
    timeouts.requestReceived();
    timeouts.writing();
    timeouts.requestReceived(); // queued behind the answer being written
    elapse(IDLE.plusSeconds(1));
    assertFalse(channel.isOpen(), "a pipelined request does not stop the write clock");
  }

  @Test
  void written_thenNextRequestAnswered_noClockWhileItWaits() {
    timeouts.requestReceived();
    timeouts.writing();
    timeouts.written();
    elapse(IDLE.multipliedBy(3));
    assertTrue(channel.isOpen(), "the next pipelined request waits under --max-wait only");
  }
}
