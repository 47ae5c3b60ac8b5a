package io.leaf.server.http;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands each decoded request of one connection to the routes and writes its answer, one request
 * at a time: the next is read only once the answer is written, so answers keep the order of
 * pipelined requests and a client cannot queue work it does not wait for. Requests that arrived
 * in the same read as the one being answered wait here, at most {@value #MAX_PIPELINED}; a client
 * that pipelines more is disconnected.
 *
 * <p>Confined to the connection's event loop, except {@link HttpCall}'s answer, which may come from
 * any thread (Netty moves the write to the event loop).
 */
final class RequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

  private static final Logger log = LoggerFactory.getLogger(RequestHandler.class);

  static final int MAX_PIPELINED = 16;

  private final HttpRoutes routes;
  private final ConnectionTimeouts timeouts;
  private final ArrayDeque<FullHttpRequest> pipelined = new ArrayDeque<>();
  private HttpCall current;

  RequestHandler(HttpRoutes routes, ConnectionTimeouts timeouts) {
    this.routes = routes;
    this.timeouts = timeouts;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    ctx.read();
    ctx.fireChannelActive();
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    timeouts.requestReceived();
    if (current != null || !pipelined.isEmpty()) {
      if (pipelined.size() >= MAX_PIPELINED) {
        ctx.close();
        return;
      }
      pipelined.add(request.retain());
      return;
    }
    handle(ctx, request);
  }

  private void handle(ChannelHandlerContext ctx, FullHttpRequest request) {
    HttpCall call = new HttpCall(request, (c, response) -> write(ctx, c, response));
    current = call;
    try {
      routes.dispatch(call);
    } catch (RuntimeException e) {
      log.error("HTTP {} {} failed", call.method(), HttpRoutes.shown(call.path()), e);
      call.fail(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error: "
          + e.getClass().getSimpleName() + " (details in the server log)");
    }
  }

  private void write(ChannelHandlerContext ctx, HttpCall call, FullHttpResponse response) {
    ctx.writeAndFlush(response).addListener((ChannelFutureListener) f -> {
      if (current == call) {
        current = null;
      }
      if (!f.isSuccess() || !call.keepAlive()) {
        ctx.close();
        return;
      }
      FullHttpRequest next = pipelined.poll();
      if (next != null) {
        try {
          handle(ctx, next);
        } finally {
          next.release();
        }
        return;
      }
      timeouts.answered();
      ctx.read();
    });
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    HttpCall call = current;
    current = null;
    if (call != null) {
      call.cancelled();
    }
    pipelined.forEach(ReferenceCountUtil::release);
    pipelined.clear();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A reset connection and the like: nothing to answer, nothing an operator must act on.
    log.debug("HTTP connection failed", cause);
    ctx.close();
  }
}
