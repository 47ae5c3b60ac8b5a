package io.leaf.client;

import io.grpc.CallCredentials;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * What a {@link LeafClient.Builder} collected, and the {@link Targets} built from it: one channel
 * per target (with the retry policy) or the caller's channel as it is.
 */
final class ClientSettings {

  /** Exactly one of the three is set: targets, channel builders, or an existing channel. */
  final List<String> targets;

  final List<? extends ManagedChannelBuilder<?>> channelBuilders;
  final ManagedChannel channel;
  Duration deadline = Duration.ofSeconds(10);
  ChannelCredentials credentials = InsecureChannelCredentials.create();
  int maxAttempts = 4;
  CallCredentials callCredentials;
  TagTokens tagTokens = TagTokens.NONE;
  Duration failoverAfter = Duration.ofSeconds(2);
  Duration retryPreferredAfter = Duration.ofSeconds(30);
  LongSupplier clock = System::nanoTime;
  boolean callOwners;

  ClientSettings(
      List<String> targets,
      List<? extends ManagedChannelBuilder<?>> channelBuilders,
      ManagedChannel channel) {
    this.targets = targets;
    this.channelBuilders = channelBuilders;
    this.channel = channel;
  }

  /** {@code d}, refused (IllegalArgumentException naming {@code name}) unless positive. */
  static Duration positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + d);
    }
    return d;
  }

  /**
   * An unmodifiable copy of {@code list}, refused when it is null (NullPointerException naming
   * {@code name}), empty (IllegalArgumentException) or holds a null (naming {@code element}).
   */
  static <T> List<T> nonEmpty(List<? extends T> list, String name, String element) {
    Objects.requireNonNull(list, name);
    if (list.isEmpty()) {
      throw new IllegalArgumentException(name + " must not be empty");
    }
    list.forEach(t -> Objects.requireNonNull(t, element));
    return List.copyOf(list);
  }

  /** {@code maxAttempts}, refused (IllegalArgumentException) outside gRPC's 1 to 5. */
  static int attempts(int maxAttempts) {
    if (maxAttempts < 1 || maxAttempts > 5) {
      throw new IllegalArgumentException("maxAttempts must be between 1 and 5, got " + maxAttempts);
    }
    return maxAttempts;
  }

  /** The targets of a new client: channels it builds and owns, or the given one, not owned. */
  Targets open() {
    if (channel != null) {
      return targets(List.of(channel), false);
    }
    List<? extends ManagedChannelBuilder<?>> builders =
        channelBuilders != null
            ? channelBuilders
            : targets.stream().map(t -> Grpc.newChannelBuilder(t, credentials)).toList();
    List<ManagedChannel> channels = new ArrayList<>();
    for (ManagedChannelBuilder<?> b : builders) {
      channels.add(RetryPolicy.build(b, maxAttempts));
    }
    return targets(channels, true);
  }

  private Targets targets(List<ManagedChannel> channels, boolean owned) {
    return new Targets(
        channels,
        owned,
        callCredentials,
        tagTokens,
        new Targets.Timing(
            deadline.toNanos(),
            failoverAfter.toNanos(),
            retryPreferredAfter.toNanos(),
            maxAttempts,
            clock),
        owners());
  }

  /**
   * The STRICT tags' owners a client built from targets calls directly, over channels it builds as
   * it builds its targets' (the same credentials and retries); none for given channels.
   */
  private OwnerRoutes owners() {
    if (!callOwners || targets == null) {
      return OwnerRoutes.NONE;
    }
    return new OwnerRoutes(
        address -> RetryPolicy.build(Grpc.newChannelBuilder(address, credentials), maxAttempts),
        retryPreferredAfter.toNanos(),
        clock);
  }
}
