package io.leaf.server.http;

import io.leaf.server.config.HttpConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;

/**
 * Turns a request the server will not serve into a {@link Refusal}, which the request handler
 * answers in its turn (after the requests before it) and then closes the connection.
 *
 * <p>Refused are: what the HTTP codec could not decode (a line or headers over their bound,
 * garbage), a version other than HTTP/1.0 and 1.1 (505; the HTTP/2 preface {@code PRI *} is one),
 * an expectation other than {@code 100-continue} (417) and a declared body over {@link
 * HttpConfig#MAX_BODY_BYTES} (413). After a refusal the rest of the connection's input is dropped:
 * the codec cannot tell where the next request starts, or the client speaks something else.
 *
 * <p>Sits right after the codec, before the aggregator (which would answer an expectation itself,
 * out of turn). Confined to the connection's event loop.
 */
final class RefusedRequests extends ChannelInboundHandlerAdapter {

  /** A request answered with {@code status} and a one-line {@code reason}, then the close. */
  record Refusal(HttpResponseStatus status, String reason) {

    /** The answer, in HTTP/1.1 whatever the request spoke, announcing the close. */
    FullHttpResponse response() {
      return closingResponse(status, reason);
    }
  }

  private boolean refused;

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (refused) {
      ReferenceCountUtil.release(msg);
      return;
    }
    Refusal refusal = null;
    if (msg instanceof HttpObject o && !o.decoderResult().isSuccess()) {
      refusal = undecodable(o.decoderResult().cause());
    } else if (msg instanceof HttpRequest request) {
      refusal = unserved(request);
    }
    if (refusal == null) {
      ctx.fireChannelRead(msg);
      return;
    }
    ReferenceCountUtil.release(msg);
    refused = true;
    ctx.fireChannelRead(refusal);
  }

  private static Refusal undecodable(Throwable cause) {
    if (cause instanceof TooLongHttpLineException) {
      return new Refusal(
          HttpResponseStatus.REQUEST_URI_TOO_LONG,
          "the request line is longer than " + HttpConfig.MAX_LINE_BYTES + " bytes");
    } else if (cause instanceof TooLongHttpHeaderException) {
      return new Refusal(
          HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
          "the request headers are longer than " + HttpConfig.MAX_HEADER_BYTES + " bytes");
    } else if (cause instanceof TooLongFrameException) {
      return new Refusal(HttpResponseStatus.BAD_REQUEST, "a part of the request is too long");
    }
    return new Refusal(HttpResponseStatus.BAD_REQUEST, "malformed HTTP request");
  }

  /** Why a well-formed request head is refused; null when it is served. */
  private static Refusal unserved(HttpRequest request) {
    HttpVersion v = request.protocolVersion();
    if (!v.equals(HttpVersion.HTTP_1_1) && !v.equals(HttpVersion.HTTP_1_0)) {
      return new Refusal(
          HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED,
          HttpRoutes.shown(v.text())
              + " is not supported: this port speaks HTTP/1.1 and"
              + " HTTP/1.0");
    }
    if (v.equals(HttpVersion.HTTP_1_1)) {
      // HTTP/1.0 has no expectations (RFC 9110 10.1.1): its Expect is ignored.
      for (String expect : request.headers().getAll(HttpHeaderNames.EXPECT)) {
        if (!HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect.trim())) {
          return new Refusal(
              HttpResponseStatus.EXPECTATION_FAILED,
              "Expect: " + HttpRoutes.shown(expect) + " is not supported (only 100-continue)");
        }
      }
    }
    long length;
    try {
      length = HttpUtil.getContentLength(request, -1L);
    } catch (NumberFormatException e) {
      return new Refusal(HttpResponseStatus.BAD_REQUEST, "malformed Content-Length");
    }
    return length > HttpConfig.MAX_BODY_BYTES ? tooLarge() : null;
  }

  /** A body over {@link HttpConfig#MAX_BODY_BYTES}, declared or as it arrives. */
  static Refusal tooLarge() {
    return new Refusal(
        HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
        "the request body is larger than " + HttpConfig.MAX_BODY_BYTES + " bytes");
  }

  /** {@code status} with {@code reason} as one line of text, announcing the close. */
  static FullHttpResponse closingResponse(HttpResponseStatus status, String reason) {
    ByteBuf body = Unpooled.copiedBuffer(reason + "\n", StandardCharsets.UTF_8);
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
    response
        .headers()
        .set(HttpHeaderNames.CONTENT_TYPE, HttpCall.TEXT)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    return response;
  }
}
