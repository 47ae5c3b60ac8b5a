package io.leaf.client;

import io.grpc.CallCredentials;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.SnowflakeServiceGrpc;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The servers a {@link LeafClient}'s calls go to, in order of preference, and which one each call
 * tries: the first not marked down.
 *
 * <p>A call that finds a target UNAVAILABLE (refused, connection lost, shutting down) or loses its
 * connection to it ({@link ConnectionLoss}), or gets no answer within the failover bound while
 * another target remains, marks it down and moves on to the next within the call's own deadline;
 * when every target failed so, the call goes over them again after a pause (100 ms, doubling up to
 * 1 s), at most {@code maxAttempts} rounds in all, while the deadline allows. A target marked down
 * is preferred again once {@code retryAfter} has passed on the clock, so calls move back to it when
 * it has recovered (and mark it down again, at the cost of one failover bound, when it has not).
 *
 * <p>A call that issues IDs of a STRICT tag whose owner a server named goes to that owner first
 * ({@link OwnerRoutes}), within the failover bound; NextSequence never does. Otherwise, with one
 * target a call is exactly one attempt on it. Calls that must not move (they write a tag's
 * definition) always go to the first target. Every attempt carries the client's credentials, or a
 * tag's own token ({@link TagTokens}).
 *
 * <p>Thread-safe: the marks are an atomic array; calls never block on one another.
 */
final class Targets implements AutoCloseable {

  /** Not marked down. */
  private static final long UP = Long.MIN_VALUE;

  /** The pause before a call's second round over the targets; doubled for each further one. */
  private static final long FIRST_ROUND_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private static final long MAX_ROUND_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * @param deadlineNanos the deadline of a whole call, failovers included
   * @param failoverAfterNanos the longest one attempt waits while another target remains
   * @param retryAfterNanos how long a target marked down is passed over
   * @param rounds how many times a call may go over every target ({@code maxAttempts})
   * @param clock nanoseconds, for the marks ({@link System#nanoTime} but in tests)
   */
  record Timing(
      long deadlineNanos,
      long failoverAfterNanos,
      long retryAfterNanos,
      int rounds,
      LongSupplier clock) {}

  /** The stubs of one attempt, bound to that attempt's deadline. */
  static final class Attempt {
    private final Route route;
    private final long deadlineNanos;

    private Attempt(Route route, long deadlineNanos) {
      this.route = route;
      this.deadlineNanos = deadlineNanos;
    }

    /** The LeafService stub for a call of {@code bizTag}: with the tag's own token, if any. */
    LeafServiceGrpc.LeafServiceBlockingStub leaf(String bizTag) {
      return leaf(bizTag, route.hearsOwners);
    }

    /**
     * As {@link #leaf}, deaf to the owner the answer names: for NextSequence, whose keys need not
     * be served by the owner of the tag's IDs.
     */
    LeafServiceGrpc.LeafServiceBlockingStub sequences(String bizTag) {
      return leaf(bizTag, false);
    }

    private LeafServiceGrpc.LeafServiceBlockingStub leaf(String bizTag, boolean hearOwner) {
      LeafServiceGrpc.LeafServiceBlockingStub stub =
          route.leaf.withDeadlineAfter(deadlineNanos, TimeUnit.NANOSECONDS);
      if (hearOwner) {
        stub = stub.withOption(OwnerRoutes.TAG, bizTag);
      }
      CallCredentials own = route.tagTokens.isEmpty() ? null : route.tagTokens.forTag(bizTag);
      return own == null ? stub : stub.withCallCredentials(own);
    }

    SnowflakeServiceGrpc.SnowflakeServiceBlockingStub snowflake() {
      return route.snowflake.withDeadlineAfter(deadlineNanos, TimeUnit.NANOSECONDS);
    }
  }

  private record Route(
      ManagedChannel channel,
      LeafServiceGrpc.LeafServiceBlockingStub leaf,
      SnowflakeServiceGrpc.SnowflakeServiceBlockingStub snowflake,
      TagTokens tagTokens,
      boolean hearsOwners) {}

  private final List<Route> routes = new ArrayList<>();
  private final boolean ownsChannels;
  private final CallCredentials credentials;
  private final TagTokens tagTokens;
  private final Timing timing;
  private final LongSupplier clock;
  private final OwnerRoutes owners;
  private final Map<String, Route> ownerRoutes = new ConcurrentHashMap<>();

  /** Per target: the clock's reading when a call last found it down, or {@link #UP}. */
  private final AtomicLongArray downSince;

  /**
   * @param channels one per target, most preferred first
   * @param credentials sent on every call but those of a tag with its own token; null: none
   * @param tagTokens the tags' own tokens
   * @param timing a call's deadline, failover bound, rounds, and how long a target stays passed
   *     over
   * @param owners the STRICT tags' owners heard of, called first ({@link OwnerRoutes#NONE}: never)
   */
  Targets(
      List<ManagedChannel> channels,
      boolean ownsChannels,
      CallCredentials credentials,
      TagTokens tagTokens,
      Timing timing,
      OwnerRoutes owners) {
    this.ownsChannels = ownsChannels;
    this.credentials = credentials;
    this.tagTokens = tagTokens;
    this.timing = timing;
    this.clock = timing.clock();
    this.owners = owners;
    for (ManagedChannel c : channels) {
      routes.add(route(c));
    }
    this.downSince = new AtomicLongArray(channels.size());
    for (int i = 0; i < channels.size(); i++) {
      downSince.set(i, UP);
    }
  }

  /** The stubs of {@code c}, with the credentials, hearing the owners each call names. */
  private Route route(ManagedChannel c) {
    // Without owners to call (the default), calls go as they are: no interceptor, no option.
    boolean hears = owners != OwnerRoutes.NONE;
    Channel heard = hears ? ClientInterceptors.intercept(c, owners.listener()) : c;
    LeafServiceGrpc.LeafServiceBlockingStub leaf = LeafServiceGrpc.newBlockingStub(heard);
    SnowflakeServiceGrpc.SnowflakeServiceBlockingStub snowflake =
        SnowflakeServiceGrpc.newBlockingStub(c);
    return new Route(
        c,
        credentials == null ? leaf : leaf.withCallCredentials(credentials),
        credentials == null ? snowflake : snowflake.withCallCredentials(credentials),
        tagTokens,
        hears);
  }

  /**
   * Runs {@code rpc} on the preferred target; when {@code failover} and the target turns out
   * unavailable, on the next one, within the call's deadline. Without {@code failover}, on the
   * first target whatever its mark: a call that writes a tag's definition must reach the database
   * it was meant for or fail.
   *
   * @throws LeafException the status of the last attempt
   */
  <T> T call(Function<Attempt, T> rpc, boolean failover) {
    return call(rpc, failover, null);
  }

  /**
   * {@link #call(Function, boolean)} for a call that issues IDs of {@code tag}: when {@code tag}'s
   * owner is known (a STRICT tag), it is tried first, within the failover bound; one that does not
   * answer is forgotten and the call goes on to the targets.
   */
  <T> T call(Function<Attempt, T> rpc, boolean failover, String tag) {
    long start = System.nanoTime();
    StatusRuntimeException last = null;
    OwnerRoutes.Owner owner = failover && tag != null ? owners.ownerOf(tag) : null;
    if (owner != null) {
      long left = timing.deadlineNanos();
      long bound = Math.min(left, timing.failoverAfterNanos());
      try {
        return rpc.apply(new Attempt(ownerRoute(owner), bound));
      } catch (StatusRuntimeException e) {
        // As for a target: silent past the bound counts only when time is left for the others.
        boolean down =
            ConnectionLoss.lost(e.getStatus())
                || e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED && bound < left;
        if (!down) {
          throw LeafException.from(e);
        }
        owners.unreachable(tag, owner.address());
        last = e;
      }
    }
    long pause = FIRST_ROUND_PAUSE_NANOS;
    for (int round = 1; ; round++) {
      int[] order = failover ? order() : new int[] {0};
      for (int k = 0; k < order.length; k++) {
        int target = order[k];
        long left = timing.deadlineNanos() - (System.nanoTime() - start);
        if (left <= 0) {
          break;
        }
        boolean another = failover && k + 1 < order.length;
        long bound = another ? Math.min(left, timing.failoverAfterNanos()) : left;
        try {
          T result = rpc.apply(new Attempt(routes.get(target), bound));
          downSince.set(target, UP);
          return result;
        } catch (StatusRuntimeException e) {
          Status.Code code = e.getStatus().getCode();
          // A lost connection loses at most the answer: calls that move lose IDs (a gap), never
          // repeat one.
          boolean down =
              ConnectionLoss.lost(e.getStatus())
                  || code == Status.Code.DEADLINE_EXCEEDED && bound < left;
          if (!down) {
            throw LeafException.from(e);
          }
          downSince.set(target, clock.getAsLong());
          last = e;
        }
      }
      long left = timing.deadlineNanos() - (System.nanoTime() - start);
      if (!failover
          || order.length < 2
          || last == null
          || round >= timing.rounds()
          || left <= pause
          || Thread.currentThread().isInterrupted()) {
        break;
      }
      // Every target lost the call or answered too late for the bound, and time is left (a slow
      // target passed over, then a fast refusal from one down): once more, after a pause.
      LockSupport.parkNanos(pause);
      pause = Math.min(2 * pause, MAX_ROUND_PAUSE_NANOS);
    }
    if (last == null) {
      throw new LeafDeadlineExceededException(
          "deadline of "
              + TimeUnit.NANOSECONDS.toMillis(timing.deadlineNanos())
              + " ms passed before a target answered",
          null);
    }
    throw LeafException.from(last);
  }

  private Route ownerRoute(OwnerRoutes.Owner owner) {
    Route r = ownerRoutes.get(owner.address());
    if (r == null || r.channel != owner.channel()) {
      r = route(owner.channel());
      ownerRoutes.put(owner.address(), r);
    }
    return r;
  }

  /** The targets a call tries, in order: those not marked down first, each group by preference. */
  int[] order() {
    int n = routes.size();
    int[] order = new int[n];
    int up = 0;
    long now = clock.getAsLong();
    for (int i = 0; i < n; i++) {
      long since = downSince.get(i);
      if (since == UP || now - since >= timing.retryAfterNanos()) {
        order[up++] = i;
      }
    }
    int next = up;
    for (int i = 0; i < n; i++) {
      long since = downSince.get(i);
      if (since != UP && now - since < timing.retryAfterNanos()) {
        order[next++] = i;
      }
    }
    return order;
  }

  /** The channel a call would try first now. */
  ManagedChannel current() {
    return routes.get(order()[0]).channel;
  }

  /** Shuts down the channels if they were built for this client, each within five seconds. */
  @Override
  public void close() {
    owners.close();
    if (!ownsChannels) {
      return;
    }
    routes.forEach(r -> r.channel.shutdown());
    try {
      for (Route r : routes) {
        if (!r.channel.awaitTermination(5, TimeUnit.SECONDS)) {
          r.channel.shutdownNow();
        }
      }
    } catch (InterruptedException e) {
      routes.forEach(r -> r.channel.shutdownNow());
      Thread.currentThread().interrupt();
    }
  }
}
