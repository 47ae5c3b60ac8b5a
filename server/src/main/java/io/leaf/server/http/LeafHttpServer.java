package io.leaf.server.http;

import io.leaf.server.config.HttpConfig;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One HTTP/1.1 server port (Netty) whose routes answer without parking a thread: a stalled or slow
 * client costs one connection slot until its timeout, never a thread.
 *
 * <p>It keeps connections alive, holds at most {@code maxConnections} of them, and bounds each
 * request's read time, each connection's idle time, and request lines, headers and bodies.
 *
 * <p>Threads: one acceptor and {@value #WORKERS} event-loop threads of its own, made by the thread
 * factories it is given and stopped by {@link #close()}. Thread-safe.
 */
public final class LeafHttpServer implements AutoCloseable {

  /** Event-loop threads per port: more than one, so that one busy connection never stops all. */
  static final int WORKERS = 2;

  private final EventLoopGroup acceptor;
  private final EventLoopGroup workers;
  private final Channel channel;
  private final ConnectionLimit limit;

  private LeafHttpServer(
      EventLoopGroup acceptor, EventLoopGroup workers, Channel channel, ConnectionLimit limit) {
    this.acceptor = acceptor;
    this.workers = workers;
    this.channel = channel;
    this.limit = limit;
  }

  /**
   * Binds {@code address} and serves {@code routes}.
   *
   * @param name names the threads ({@code leaf-http-<name>-N})
   * @param threads the factory of daemon threads named after its argument (the server's is {@code
   *     ServerThreads.http})
   * @param refusals told the limit's flag each time a connection is refused
   * @throws UncheckedIOException the address cannot be bound; its message says why
   */
  public static LeafHttpServer start(
      String name,
      InetSocketAddress address,
      HttpConfig config,
      HttpRoutes routes,
      Function<String, ThreadFactory> threads,
      Consumer<String> refusals) {
    EventLoopGroup acceptor =
        new MultiThreadIoEventLoopGroup(
            1, threads.apply("leaf-http-" + name + "-accept"), NioIoHandler.newFactory());
    EventLoopGroup workers =
        new MultiThreadIoEventLoopGroup(
            WORKERS, threads.apply("leaf-http-" + name), NioIoHandler.newFactory());
    ConnectionLimit limit = new ConnectionLimit(config.maxConnections(), refusals);
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(acceptor, workers)
            .channel(NioServerSocketChannel.class)
            // Reads are asked for by the handlers (ConnectionTimeouts, RequestHandler), which bound
            // what a connection's input may hold: no reads the server did not ask for.
            .childOption(ChannelOption.AUTO_READ, false)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast("limit", limit);
                    configure(ch.pipeline(), config, routes);
                  }
                });
    Channel channel;
    try {
      channel = bootstrap.bind(address).syncUninterruptibly().channel();
    } catch (Exception e) {
      acceptor.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      workers.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      String reason =
          e.getMessage() != null && e.getMessage().contains("Address already in use")
              ? "Address already in use"
              : String.valueOf(e.getMessage());
      throw new UncheckedIOException(
          "cannot listen on port " + address.getPort() + ": " + reason,
          e instanceof java.io.IOException io ? io : new java.io.IOException(e));
    }
    return new LeafHttpServer(acceptor, workers, channel, limit);
  }

  /** The handlers of one connection after the connection bound: timeouts, codec, requests. */
  static void configure(ChannelPipeline p, HttpConfig config, HttpRoutes routes) {
    ConnectionTimeouts timeouts =
        new ConnectionTimeouts(config.readTimeout(), config.idleTimeout());
    p.addLast("timeouts", timeouts);
    p.addLast(
        "codec", new HttpServerCodec(HttpConfig.MAX_LINE_BYTES, HttpConfig.MAX_HEADER_BYTES, 8192));
    p.addLast("refused", new RefusedRequests());
    p.addLast("aggregate", new BoundedAggregator());
    p.addLast("requests", new RequestHandler(routes, timeouts));
  }

  /** The bound port (useful with port 0). */
  public int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  /** Connections open now. */
  public int openConnections() {
    return limit.open();
  }

  /** Stops accepting, closes every connection and stops the threads (within a few seconds). */
  @Override
  public void close() {
    channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    acceptor.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  /**
   * Aggregates a request up to {@link HttpConfig#MAX_BODY_BYTES}; a body that grows past it (one
   * without a Content-Length) is refused in its turn, 413. Expectations were judged before (see
   * {@link RefusedRequests}): only a {@code 100-continue} within the bound reaches this handler,
   * which answers it {@code 100 Continue}.
   */
  private static final class BoundedAggregator extends HttpObjectAggregator {

    BoundedAggregator() {
      super(HttpConfig.MAX_BODY_BYTES, true);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
      ctx.fireChannelRead(RefusedRequests.tooLarge());
    }
  }
}
