package io.leaf.server.http;

import io.leaf.server.config.HttpConfig;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The clocks of one connection: a request must arrive whole within the read timeout of its first
 * byte (else 408 and close), a connection without a request in progress is closed after the idle
 * timeout, and so is one whose answer the client does not read within the idle timeout.
 *
 * <p>While a request waits for its answer no clock runs here: that wait is bounded elsewhere
 * ({@code --max-wait}). Once the answer is being written, the write clock runs until the bytes
 * reach the socket: a client that pipelines requests and never reads the answers would otherwise
 * hold its connection slot forever.
 *
 * <p>Sits before the HTTP codec, so it sees the first raw byte of a request; the request handler
 * tells it when a request was decoded and when its answer was written (and the next pipelined one
 * started), so these three states are the whole story. While a request is arriving this handler
 * keeps reading (auto-read is off); while one is answered the request handler does, to see a
 * hang-up, and what arrives then is bounded by the handler's pipelining limits.
 *
 * <p>Confined to the connection's event loop, like every per-connection handler.
 */
final class ConnectionTimeouts extends ChannelInboundHandlerAdapter {

  private enum State {
    IDLE,
    READING,
    ANSWERING,
    WRITING
  }

  private final long readNanos;
  private final long idleNanos;
  private final Duration readTimeout;
  private ChannelHandlerContext ctx;
  private State state = State.IDLE;
  private ScheduledFuture<?> timer;

  ConnectionTimeouts(Duration readTimeout, Duration idleTimeout) {
    this.readTimeout = readTimeout;
    this.readNanos = readTimeout.toNanos();
    this.idleNanos = idleTimeout.toNanos();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    idle();
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (state == State.IDLE) {
      state = State.READING;
      arm(readNanos, State.READING);
    }
    ctx.fireChannelRead(msg);
  }

  /**
   * Auto-read is off: while a request is still arriving, ask for the rest here, whatever the
   * decoders behind do (one that has emitted the headers does not ask for the body).
   */
  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (state == State.READING) {
      ctx.read();
    }
    ctx.fireChannelReadComplete();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancel();
    ctx.fireChannelInactive();
  }

  /**
   * A whole request was decoded: no clock while it is answered. One pipelined behind an answer
   * still being written leaves that answer's write clock running.
   */
  void requestReceived() {
    if (state == State.WRITING) {
      return;
    }
    state = State.ANSWERING;
    cancel();
  }

  /** The answer being written reached the socket; what comes next sets its own clock. */
  void written() {
    state = State.ANSWERING;
    cancel();
  }

  /**
   * An answer is being written: unless it reaches the socket within the idle timeout (then {@link
   * #answered()} or a close ends this), the connection is closed.
   */
  void writing() {
    state = State.WRITING;
    arm(idleNanos, State.WRITING);
  }

  /** The answer was written and the connection stays open: the idle clock runs. */
  void answered() {
    idle();
  }

  private void idle() {
    state = State.IDLE;
    arm(idleNanos, State.IDLE);
  }

  private void arm(long nanos, State armedIn) {
    cancel();
    timer = ctx.executor().schedule(() -> expire(armedIn), nanos, TimeUnit.NANOSECONDS);
  }

  private void cancel() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  private void expire(State armedIn) {
    if (state != armedIn || !ctx.channel().isActive()) {
      return;
    }
    timer = null;
    if (state == State.READING) {
      RawResponses.answerAndClose(
          ctx,
          "408 Request Timeout",
          "the request did not arrive whole"
              + " within "
              + readTimeout.toMillis()
              + " ms ("
              + HttpConfig.READ_TIMEOUT_FLAG
              + ")");
      writing(); // a client that does not read the 408 is closed all the same
    } else {
      ctx.close();
    }
  }
}
