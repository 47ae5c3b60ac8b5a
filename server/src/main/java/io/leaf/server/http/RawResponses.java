package io.leaf.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import java.nio.charset.StandardCharsets;

/**
 * A whole HTTP/1.1 response written as bytes, then the connection closed: for the handlers that sit
 * before the HTTP codec (the connection bound, the timeouts), which answer on a connection whose
 * request was never decoded.
 */
final class RawResponses {

  private RawResponses() {}

  /**
   * Writes {@code status} (e.g. {@code "429 Too Many Requests"}) with a one-line reason, closes.
   */
  static void answerAndClose(ChannelHandlerContext ctx, String status, String reason) {
    byte[] body = (reason + "\n").getBytes(StandardCharsets.UTF_8);
    String head =
        "HTTP/1.1 "
            + status
            + "\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: "
            + body.length
            + "\r\n"
            + "Connection: close\r\n\r\n";
    ByteBuf out = Unpooled.buffer(head.length() + body.length);
    out.writeCharSequence(head, StandardCharsets.US_ASCII);
    out.writeBytes(body);
    ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
  }
}
