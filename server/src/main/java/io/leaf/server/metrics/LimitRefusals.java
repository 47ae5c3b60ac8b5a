package io.leaf.server.metrics;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.leaf.server.engine.LimitExceededException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;

/**
 * Counts calls refused with RESOURCE_EXHAUSTED by the limit that refused them ({@code
 * leaf.limit.refusals}, tag {@code limit} = the flag that sets it, a fixed set of names). The limit
 * is read from the status's server-side cause, which never reaches the client.
 *
 * <p>Cost per call: one wrapper object; a counter lookup only on a refusal. Thread-safe.
 */
final class LimitRefusals implements ServerInterceptor {

  static final String NAME = "leaf.limit.refusals";

  /**
   * Every limit that refuses calls, by its flag: each series exists from the start at zero, so a
   * dashboard or an alert on {@code leaf_limit_refusals_total} sees it before the first refusal.
   */
  static final List<String> LIMITS =
      List.of(
          "--max-waiting",
          "--max-queued-loads",
          "--max-queued-first-loads",
          "--max-queued-db-calls",
          "--max-streams",
          "--max-stream-memory",
          "--max-watches",
          "--http-max-connections");

  private final MeterRegistry registry;

  LimitRefusals(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
    return next.startCall(
        new SimpleForwardingServerCall<>(call) {
          @Override
          public void close(Status status, Metadata trailers) {
            if (status.getCode() == Status.Code.RESOURCE_EXHAUSTED
                && status.getCause() instanceof LimitExceededException e) {
              counter(registry, e.flag()).increment();
            }
            super.close(status, trailers);
          }
        },
        headers);
  }

  /** The refusal counter of the limit set by {@code flag}. */
  static Counter counter(MeterRegistry registry, String flag) {
    return Counter.builder(NAME)
        .description("calls refused because a server limit was reached")
        .tag("limit", flag)
        .register(registry);
  }
}
