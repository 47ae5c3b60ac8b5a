package io.leaf.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The owners of STRICT tags a client has heard of (the {@code leaf-owner} response header) and a
 * channel to each, so that calls on such a tag go to its owner first and save the hop between
 * servers.
 *
 * <p>Thread-safe. At most {@link #MAX_TAGS} tags and {@link #MAX_OWNERS} owner channels are kept;
 * an owner that could not be reached is passed over for {@code retryAfterNanos}.
 */
final class OwnerRoutes implements AutoCloseable {

  /** Knows no owner: every call goes to the targets. */
  static final OwnerRoutes NONE = new OwnerRoutes(null, 0, System::nanoTime);

  static final Metadata.Key<String> OWNER =
      Metadata.Key.of("leaf-owner", Metadata.ASCII_STRING_MARSHALLER);

  /** The tag a call is for, which the header is learnt for. */
  static final CallOptions.Key<String> TAG = CallOptions.Key.create("leaf-tag");

  static final int MAX_TAGS = 1024;
  static final int MAX_OWNERS = 16;

  private final Function<String, ManagedChannel> connect;
  private final long retryAfterNanos;
  private final LongSupplier clock;
  private final Map<String, String> ownerOfTag = new ConcurrentHashMap<>();
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final Map<String, Long> unreachableSince = new ConcurrentHashMap<>();

  /**
   * @param connect a channel to an owner's {@code HOST:PORT}; null: owners are never called
   * @param retryAfterNanos how long an owner that could not be reached is passed over
   * @param clock nanoseconds ({@link System#nanoTime} but in tests)
   */
  OwnerRoutes(Function<String, ManagedChannel> connect, long retryAfterNanos, LongSupplier clock) {
    this.connect = connect;
    this.retryAfterNanos = retryAfterNanos;
    this.clock = clock;
  }

  /** Hears the owner named in the response headers of each call made with {@link #TAG}. */
  ClientInterceptor listener() {
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(
          MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        String tag = options.getOption(TAG);
        ClientCall<Q, R> call = next.newCall(method, options);
        if (tag == null || connect == null) {
          return call;
        }
        return new SimpleForwardingClientCall<>(call) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            super.start(
                new SimpleForwardingClientCallListener<>(listener) {
                  @Override
                  public void onHeaders(Metadata h) {
                    String owner = h.get(OWNER);
                    if (owner != null) {
                      learn(tag, owner);
                    }
                    super.onHeaders(h);
                  }
                },
                headers);
          }
        };
      }
    };
  }

  void learn(String tag, String owner) {
    if (ownerOfTag.size() >= MAX_TAGS && !ownerOfTag.containsKey(tag)) {
      ownerOfTag.clear(); // a rough bound: the tags in use are heard of again
    }
    ownerOfTag.put(tag, owner);
  }

  /** The owner of {@code tag} to call first, and its channel; null when there is none to try. */
  Owner ownerOf(String tag) {
    String owner = ownerOfTag.get(tag);
    if (owner == null || connect == null) {
      return null;
    }
    Long since = unreachableSince.get(owner);
    if (since != null) {
      if (clock.getAsLong() - since < retryAfterNanos) {
        return null;
      }
      unreachableSince.remove(owner, since);
    }
    ManagedChannel channel = channels.get(owner);
    if (channel == null) {
      if (channels.size() >= MAX_OWNERS) {
        return null;
      }
      try {
        channel = channels.computeIfAbsent(owner, connect);
      } catch (RuntimeException e) {
        unreachable(tag, owner); // an address gRPC cannot use
        return null;
      }
    }
    return new Owner(owner, channel);
  }

  /** {@code owner} did not answer a call on {@code tag}: passed over for a while. */
  void unreachable(String tag, String owner) {
    ownerOfTag.remove(tag, owner);
    if (unreachableSince.size() >= MAX_TAGS) {
      unreachableSince.clear();
    }
    unreachableSince.put(owner, clock.getAsLong());
  }

  /** An owner's address and the channel to it. */
  record Owner(String address, ManagedChannel channel) {}

  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdown);
    try {
      for (ManagedChannel c : channels.values()) {
        if (!c.awaitTermination(5, TimeUnit.SECONDS)) {
          c.shutdownNow();
        }
      }
    } catch (InterruptedException e) {
      channels.values().forEach(ManagedChannel::shutdownNow);
      Thread.currentThread().interrupt();
    }
  }
}
