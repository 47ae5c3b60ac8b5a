package io.leaf.server.http;

import io.leaf.server.http.RefusedRequests.Refusal;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands each decoded request of one connection to the routes and writes its answer, one request at
 * a time, so answers keep the order of pipelined requests.
 *
 * <p>While a request is answered the connection keeps reading: a client that hangs up is seen at
 * once (its call is cancelled and the wait it held dropped), and requests it pipelines wait here,
 * at most {@value #MAX_PIPELINED} holding at most {@value #MAX_PIPELINED_BYTES} bytes (what one
 * read brought before). One more is refused: the requests before it are answered in order, then it
 * is answered 429 and the connection closed. A {@link Refusal} from the handlers before (a
 * malformed or unserved request) is answered the same way, in its turn. After a refusal the input
 * is dropped.
 *
 * <p>Confined to the connection's event loop, except {@link HttpCall}'s answer, which may come from
 * any thread (Netty moves the write to the event loop).
 */
final class RequestHandler extends ChannelInboundHandlerAdapter {

  private static final Logger log = LoggerFactory.getLogger(RequestHandler.class);

  static final int MAX_PIPELINED = 16;

  /** The most bytes (targets, headers, bodies) the waiting pipelined requests may hold. */
  static final int MAX_PIPELINED_BYTES = 64 * 1024;

  private final HttpRoutes routes;
  private final ConnectionTimeouts timeouts;

  /** Requests ({@link FullHttpRequest}) and at most one {@link Refusal}, last, in arrival order. */
  private final ArrayDeque<Object> pipelined = new ArrayDeque<>();

  private int pipelinedBytes;
  private HttpCall current;

  /** A refusal is queued or written: every later request is dropped. */
  private boolean refusing;

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
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest) && !(msg instanceof Refusal)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (refusing) {
      ReferenceCountUtil.release(msg);
      return;
    }
    timeouts.requestReceived();
    if (msg instanceof Refusal refusal) {
      refusing = true;
      if (busy()) {
        pipelined.add(refusal);
      } else {
        refuse(ctx, refusal);
      }
      return;
    }
    FullHttpRequest request = (FullHttpRequest) msg;
    if (!busy()) {
      handle(ctx, request);
      return;
    }
    int size = size(request);
    if (pipelined.size() < MAX_PIPELINED && pipelinedBytes + size <= MAX_PIPELINED_BYTES) {
      pipelined.add(request);
      pipelinedBytes += size;
      return;
    }
    request.release();
    refusing = true;
    String bound =
        pipelined.size() >= MAX_PIPELINED
            ? "more than " + MAX_PIPELINED + " requests pipelined behind the one being answered"
            : "the requests pipelined behind the one being answered would hold more than "
                + MAX_PIPELINED_BYTES
                + " bytes";
    pipelined.add(
        new Refusal(
            HttpResponseStatus.TOO_MANY_REQUESTS,
            bound + "; the requests before this one are answered, then the connection is closed"));
  }

  /** About the bytes {@code request} holds: its target, headers and body. */
  private static int size(FullHttpRequest request) {
    int size = request.uri().length() + request.content().readableBytes();
    for (var header : request.headers()) {
      size += header.getKey().length() + header.getValue().length() + 4;
    }
    return size;
  }

  /**
   * Auto-read is off: while a request is answered, ask for more, so that a hang-up is noticed and
   * pipelined requests are queued or refused (both bounded).
   */
  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (busy()) {
      ctx.read();
    }
    ctx.fireChannelReadComplete();
  }

  private boolean busy() {
    return current != null || !pipelined.isEmpty();
  }

  /** Answers {@code request}, which this method releases. */
  private void handle(ChannelHandlerContext ctx, FullHttpRequest request) {
    String path;
    String badTarget = null;
    try {
      path = RequestTarget.path(request.uri());
    } catch (IllegalArgumentException e) {
      path = "/";
      badTarget = e.getMessage();
    }
    HttpCall call = new HttpCall(request, path, (c, response) -> write(ctx, c, response));
    current = call;
    try {
      if (badTarget != null) {
        call.fail(HttpResponseStatus.BAD_REQUEST, badTarget);
      } else {
        routes.dispatch(call);
      }
    } catch (RuntimeException | Error e) {
      // An Error too: unanswered, the call would hold the connection (and pipelined ones) for good.
      log.error("HTTP {} {} failed", call.method(), HttpRoutes.shown(call.path()), e);
      call.fail(
          HttpResponseStatus.INTERNAL_SERVER_ERROR,
          "internal error: " + e.getClass().getSimpleName() + " (details in the server log)");
    } finally {
      request.release();
    }
  }

  private void write(ChannelHandlerContext ctx, HttpCall call, FullHttpResponse response) {
    if (!ctx.executor().inEventLoop()) {
      // Answers complete on loader and timer threads; the connection's state is its loop's.
      try {
        ctx.executor().execute(() -> write(ctx, call, response));
      } catch (java.util.concurrent.RejectedExecutionException closing) {
        response.release(); // the port is closing: nobody is left to answer
      }
      return;
    }
    timeouts.writing();
    ctx.writeAndFlush(response)
        .addListener(
            (ChannelFutureListener)
                f -> {
                  if (current == call) {
                    current = null;
                  }
                  if (!f.isSuccess() || !call.keepAlive()) {
                    ctx.close();
                    return;
                  }
                  timeouts.written();
                  Object next = pipelined.poll();
                  if (next instanceof FullHttpRequest request) {
                    pipelinedBytes -= size(request);
                    handle(ctx, request);
                  } else if (next instanceof Refusal refusal) {
                    refuse(ctx, refusal);
                  } else {
                    timeouts.answered();
                    ctx.read();
                  }
                });
  }

  private void refuse(ChannelHandlerContext ctx, Refusal refusal) {
    timeouts.writing();
    ctx.writeAndFlush(refusal.response()).addListener(ChannelFutureListener.CLOSE);
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
    pipelinedBytes = 0;
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A reset connection and the like: nothing to answer, nothing an operator must act on.
    log.debug("HTTP connection failed", cause);
    ctx.close();
  }
}
