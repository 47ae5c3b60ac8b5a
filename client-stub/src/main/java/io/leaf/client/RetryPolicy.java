package io.leaf.client;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.SnowflakeServiceGrpc;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The service config a {@link LeafClient} gives the channel it owns: which methods gRPC retries on
 * UNAVAILABLE, and how.
 */
final class RetryPolicy {

  /**
   * LeafService methods that are safe to repeat: reads (WhoIssued too), ID calls (a repeat is a
   * gap), setting a step, a format (the same format again continues the same numbering) or an
   * ordering (the same ordering again changes nothing).
   */
  static final List<String> RETRIED_METHODS =
      List.of(
          "NextId",
          "NextIdBatch",
          "ReserveIds",
          "InitCache",
          "GetTag",
          "ListTags",
          "UpdateStep",
          "SetFormat",
          "NextFormattedId",
          "NextFormattedIdBatch",
          "ParseFormattedId",
          "WhoIssued",
          "SetOrdering",
          "NextSequence",
          "DecodeScatteredId");

  /** SnowflakeService methods, all safe to repeat (a repeated ID call is a gap). */
  static final List<String> RETRIED_SNOWFLAKE_METHODS =
      List.of(
          "NextSnowflakeId",
          "NextSnowflakeIdBatch",
          "DecodeSnowflakeId",
          "GetWorker",
          "NextUuid",
          "NextUuidBatch",
          "DecodeUuid");

  /**
   * The channel's default service config: every LeafService method except CreateTag retries
   * UNAVAILABLE up to {@code maxAttempts} attempts in total, backing off from 100 ms up to 2 s.
   * gRPC retries only calls the server has not answered with a message yet, so a half-received ID
   * stream is never replayed; a retried ID call at worst leaves a gap. CreateTag is not retried: an
   * insert that committed before its reply was lost would come back as ALREADY_EXISTS.
   */
  static Map<String, ?> serviceConfig(int maxAttempts) {
    Map<String, Object> retryPolicy =
        Map.of(
            "maxAttempts",
            (double) maxAttempts,
            "initialBackoff",
            "0.1s",
            "maxBackoff",
            "2s",
            "backoffMultiplier",
            2.0,
            "retryableStatusCodes",
            List.of("UNAVAILABLE"));
    Map<String, Object> methodConfig =
        Map.of(
            "name",
            Stream.concat(
                    RETRIED_METHODS.stream()
                        .map(m -> Map.of("service", LeafServiceGrpc.SERVICE_NAME, "method", m)),
                    RETRIED_SNOWFLAKE_METHODS.stream()
                        .map(
                            m -> Map.of("service", SnowflakeServiceGrpc.SERVICE_NAME, "method", m)))
                .toList(),
            "retryPolicy",
            retryPolicy);
    return Map.of("methodConfig", List.of(methodConfig));
  }

  /** The channel {@code builder} builds with this policy ({@code maxAttempts} 1: no retries). */
  static ManagedChannel build(ManagedChannelBuilder<?> builder, int maxAttempts) {
    builder.defaultServiceConfig(serviceConfig(maxAttempts));
    if (maxAttempts > 1) {
      builder.enableRetry();
    } else {
      builder.disableRetry();
    }
    return builder.build();
  }

  private RetryPolicy() {}
}
