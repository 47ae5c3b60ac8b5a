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
        deadline.toNanos(),
        failoverAfter.toNanos(),
        retryPreferredAfter.toNanos(),
        clock);
  }
}
