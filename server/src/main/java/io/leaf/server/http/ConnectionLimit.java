package io.leaf.server.http;

import io.leaf.server.config.HttpConfig;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * At most {@code max} open connections on one port: the next one is answered 429 naming the limit
 * and its flag, counted, and closed before anything it sends is read.
 *
 * <p>Shared by every connection of a port; thread-safe (one atomic counter).
 */
@ChannelHandler.Sharable
final class ConnectionLimit extends ChannelInboundHandlerAdapter {

  private static final AttributeKey<Boolean> COUNTED = AttributeKey.valueOf("leaf.http.counted");

  private final int max;
  private final Consumer<String> refusals;
  private final AtomicInteger open = new AtomicInteger();

  /**
   * @param refusals told the flag of the limit each time a connection is refused
   */
  ConnectionLimit(int max, Consumer<String> refusals) {
    this.max = max;
    this.refusals = refusals;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    if (open.incrementAndGet() > max) {
      open.decrementAndGet();
      refusals.accept(HttpConfig.MAX_CONNECTIONS_FLAG);
      RawResponses.answerAndClose(
          ctx,
          "429 Too Many Requests",
          "too many HTTP connections (limit " + max + ", " + HttpConfig.MAX_CONNECTIONS_FLAG + ")");
      return;
    }
    ctx.channel().attr(COUNTED).set(Boolean.TRUE);
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (ctx.channel().attr(COUNTED).getAndSet(null) != null) {
      open.decrementAndGet();
    }
    ctx.fireChannelInactive();
  }

  /** Connections open now. */
  int open() {
    return open.get();
  }
}
