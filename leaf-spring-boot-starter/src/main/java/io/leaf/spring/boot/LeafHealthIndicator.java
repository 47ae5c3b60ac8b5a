package io.leaf.spring.boot;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.leaf.client.LeafClient;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * UP while the Leaf server answers the standard {@code grpc.health.v1} Check of {@value #READINESS}
 * with SERVING (it can issue IDs), DOWN with the reason otherwise.
 *
 * <p>The reason is the status it reports, or the gRPC status of a check that failed (unreachable,
 * timed out). The database's own health, which the server reports separately, is a detail that does
 * not change the status: buffered IDs keep flowing through a database outage.
 *
 * <p>Thread-safe; each {@link #health()} is one or two calls on the client's channel, each bounded
 * by {@code leaf.client.health-timeout}.
 */
public class LeafHealthIndicator implements HealthIndicator {

  /** The health service name whose status means "this server can issue IDs". */
  public static final String READINESS = "leaf.v1.LeafService";

  /** The health service name of the server's database check. */
  public static final String DATABASE = "leaf.database";

  private final LeafClient client;
  private final long timeoutNanos;

  /**
   * Checks the server {@code client} calls, each check bounded by {@code timeout}: with several
   * targets, the one its calls go to at the time of the check.
   */
  public LeafHealthIndicator(LeafClient client, Duration timeout) {
    this.client = Objects.requireNonNull(client, "client");
    this.timeoutNanos = timeout.toNanos();
  }

  @Override
  public Health health() {
    HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(client.channel());
    ServingStatus readiness;
    try {
      readiness = check(health, READINESS);
    } catch (StatusRuntimeException e) {
      return Health.down()
          .withDetail("reason", "health check failed: " + describe(e.getStatus()))
          .build();
    }
    Health.Builder b =
        readiness == ServingStatus.SERVING
            ? Health.up()
            : Health.down()
                .withDetail("reason", "the server reports " + READINESS + " as " + readiness);
    b.withDetail("status", readiness.name());
    try {
      b.withDetail("database", check(health, DATABASE).name());
    } catch (StatusRuntimeException e) {
      b.withDetail("database", "unknown (" + describe(e.getStatus()) + ")");
    }
    return b.build();
  }

  private ServingStatus check(HealthGrpc.HealthBlockingStub health, String service) {
    return health
        .withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS)
        .check(HealthCheckRequest.newBuilder().setService(service).build())
        .getStatus();
  }

  private static String describe(Status s) {
    return s.getDescription() == null
        ? s.getCode().name()
        : s.getCode() + ": " + s.getDescription();
  }
}
