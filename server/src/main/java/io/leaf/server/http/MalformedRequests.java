package io.leaf.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;

/**
 * Answers what the HTTP codec could not decode (a request line or headers over their bound,
 * garbage) with its status and a one-line reason, then closes: after a malformed request the
 * codec cannot tell where the next one starts. Sits right after the codec, since a request whose
 * headers failed never reaches the aggregator whole.
 *
 * <p>Confined to the connection's event loop.
 */
final class MalformedRequests extends ChannelInboundHandlerAdapter {

  private final ConnectionTimeouts timeouts;
  private boolean answered;

  MalformedRequests(ConnectionTimeouts timeouts) {
    this.timeouts = timeouts;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof HttpObject o) || o.decoderResult().isSuccess()) {
      ctx.fireChannelRead(msg);
      return;
    }
    Throwable cause = o.decoderResult().cause();
    ReferenceCountUtil.release(msg);
    if (answered) {
      return;
    }
    answered = true;
    timeouts.requestReceived();
    HttpResponseStatus status;
    String reason;
    if (cause instanceof TooLongHttpLineException) {
      status = HttpResponseStatus.REQUEST_URI_TOO_LONG;
      reason = "the request line is longer than " + HttpConfig.MAX_LINE_BYTES + " bytes";
    } else if (cause instanceof TooLongHttpHeaderException) {
      status = HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
      reason = "the request headers are longer than " + HttpConfig.MAX_HEADER_BYTES + " bytes";
    } else if (cause instanceof TooLongFrameException) {
      status = HttpResponseStatus.BAD_REQUEST;
      reason = "a part of the request is too long";
    } else {
      status = HttpResponseStatus.BAD_REQUEST;
      reason = "malformed HTTP request";
    }
    ctx.writeAndFlush(closingResponse(status, reason)).addListener(ChannelFutureListener.CLOSE);
  }

  /** {@code status} with {@code reason} as one line of text, announcing the close. */
  static FullHttpResponse closingResponse(HttpResponseStatus status, String reason) {
    ByteBuf body = Unpooled.copiedBuffer(reason + "\n", StandardCharsets.UTF_8);
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpCall.TEXT)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    return response;
  }
}
