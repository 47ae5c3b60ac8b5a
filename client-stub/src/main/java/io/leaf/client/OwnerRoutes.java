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
import java.util.regex.Pattern;

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

  /** What an owner may be: a host name or IPv4 address, or an IPv6 one in brackets, and a port. */
  private static final Pattern HOST_PORT =
      Pattern.compile("(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}");

  static final int MAX_TAGS = 1024;
  static final int MAX_OWNERS = 16;

  private final Function<String, ManagedChannel> connect;
  private final long retryAfterNanos;
  private final LongSupplier clock;
  private final Map<String, String> ownerOfTag = new ConcurrentHashMap<>();
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final Map<String, Long> unreachableSince = new ConcurrentHashMap<>();
  private boolean closed;

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
    if (!HOST_PORT.matcher(owner).matches()) {
      return; // only HOST:PORT: never a target URI (a scheme, a unix socket, a name server)
    }
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
      channel = open(tag, owner);
    }
    return channel == null ? null : new Owner(owner, channel);
  }

  /** A channel to {@code owner}, made now; null when closed, full, or the address is unusable. */
  private synchronized ManagedChannel open(String tag, String owner) {
    if (closed) {
      return null;
    }
    if (channels.size() >= MAX_OWNERS) {
      // Owners no tag names any more (restarted elsewhere, moved) make room.
      channels
          .entrySet()
          .removeIf(
              e -> {
                boolean stale = !ownerOfTag.containsValue(e.getKey());
                if (stale) {
                  e.getValue().shutdown();
                }
                return stale;
              });
      if (channels.size() >= MAX_OWNERS) {
        return null;
      }
    }
    ManagedChannel channel = channels.get(owner);
    if (channel != null) {
      return channel;
    }
    try {
      channel = connect.apply(owner);
    } catch (RuntimeException e) {
      unreachable(tag, owner); // an address gRPC cannot use
      return null;
    }
    channels.put(owner, channel);
    return channel;
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
    synchronized (this) {
      closed = true;
    }
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
