package io.leaf.server.metrics;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.leaf.server.engine.EngineEvents;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.ordering.Ordering;
import io.leaf.server.security.TokenMeters;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.InvalidTagStateException;
import io.leaf.server.store.StoreRejectedException;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.sweep.IdleTagSweeper;
import io.leaf.v1.LeafServiceGrpc;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.grpc.MetricCollectingServerInterceptor;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Holds the server's meters in one Prometheus registry whose number of series is fixed whatever
 * tags callers use.
 *
 * <p>It has gRPC calls per method and status (Micrometer's interceptor), refusals per limit,
 * segment loads per outcome, the engine's gauges, the database check, the HikariCP pool, the JVM,
 * and IDs per token of the token file; no meter has a per-tag label.
 *
 * <p>Cost: nothing per buffered ID (the engine reports only loads and missing-tag answers, see
 * {@link EngineEvents}); per gRPC call, the two interceptors' bookkeeping; gauges are read when
 * scraped. Thread-safe.
 */
public final class Metrics implements EngineEvents, AutoCloseable {

  static final String SEGMENT_LOADS = "leaf.segment.loads";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final Counter missingTagHits;
  private final Counter segmentRewinds;
  private final Counter segmentWaits;
  private final Counter segmentDrops;
  private final TokenCounters tokenCounters = new TokenCounters(registry);

  public Metrics() {
    segmentRewinds =
        Counter.builder("leaf.segment.rewinds")
            .description(
                "ranges the database handed out below IDs this server already issued for the tag (a"
                    + " restored backup, a lagging replica promoted); the overlap was skipped")
            .register(registry);
    segmentWaits =
        Counter.builder("leaf.segment.waits")
            .description(
                "waits for a segment load by calls that found their tag's buffered IDs"
                    + " used up (the prefetch fell behind, or the tag was not loaded yet)")
            .register(registry);
    segmentDrops =
        Counter.builder("leaf.segment.drops")
            .description(
                "loaded segments dropped unused because they arrived below the segment in use"
                    + " (loads side by side finished out of order; a gap); other gaps are not"
                    + " counted")
            .register(registry);
    missingTagHits =
        Counter.builder("leaf.missing_tag.hits")
            .description(
                "calls answered NOT_FOUND without the database: from the missing-tag"
                    + " cache, or for a name the biz_tag column cannot hold")
            .register(registry);
    LimitRefusals.LIMITS.forEach(flag -> LimitRefusals.counter(registry, flag));
    // Loads that succeed and loads the database's outage fails: there from the start, at zero.
    for (boolean first : new boolean[] {true, false}) {
      loads("loaded", first);
      loads("unavailable", first);
    }
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
  }

  /** The Prometheus text exposition of every meter. */
  public String scrape() {
    return registry.scrape();
  }

  /**
   * The interceptors to install, outermost last (the order {@code ServerBuilder.intercept} wants):
   * refusals per limit, then calls per method and status with latency histograms.
   */
  public ServerInterceptor[] interceptors() {
    // Every LeafService method's OK series exists from the start (at zero), so dashboards and
    // alerts find the names before the first call; other statuses appear with their first call.
    MetricCollectingServerInterceptor calls =
        new MetricCollectingServerInterceptor(
            registry,
            counter -> counter,
            timer -> timer.publishPercentileHistogram(),
            Status.Code.OK);
    calls.preregisterService(LeafServiceGrpc.getServiceDescriptor());
    return new ServerInterceptor[] {new LimitRefusals(registry), calls};
  }

  /**
   * Gauges for the engine's state and for the server's periodic database check ({@code
   * databaseUp}); the engine's loads and missing-tag answers arrive when this registry is its
   * {@link io.leaf.server.engine.EngineListeners#events}.
   */
  public void watchEngine(
      SegmentAllocator allocator, IdleTagSweeper sweeper, BooleanSupplier databaseUp) {
    Gauge.builder("leaf.database.up", databaseUp, up -> up.getAsBoolean() ? 1 : 0)
        .description("1 when the last database check (every 2 s) passed, else 0")
        // The supplier is often a lambda nothing else holds; a weak gauge would read NaN.
        .strongReference(true)
        .register(registry);
    Gauge.builder("leaf.tags.cached", allocator, SegmentAllocator::cachedCount)
        .description("tags whose segments this server holds")
        .register(registry);
    Gauge.builder("leaf.segment.waiting.calls", allocator, SegmentAllocator::waitingCalls)
        .description("calls waiting for a segment load (limit --max-waiting)")
        .register(registry);
    FunctionCounter.builder("leaf.tags.evictions", sweeper, IdleTagSweeper::evictions)
        .description("tags evicted after --idle-ttl without a request")
        .register(registry);
  }

  /** Gauges of the snowflake side: worker lease, clock rule, years the layout has left. */
  public void watchSnowflake(Snowflake snowflake) {
    SnowflakeMeters.register(registry, snowflake);
  }

  /**
   * STRICT tags: calls forwarded to an owner ({@code leaf.ordering.forwarded}), owner terms this
   * server began ({@code leaf.ordering.owner.terms}), the failover gaps its callers met ({@code
   * leaf.ordering.failover.gap}) and sequence groups it owns now.
   */
  public void watchOrdering(Ordering ordering) {
    FunctionCounter.builder("leaf.ordering.forwarded", ordering, Ordering::forwardedCalls)
        .description("calls on STRICT tags this server forwarded to their owner")
        .register(registry);
    FunctionCounter.builder("leaf.ordering.owner.terms", ordering, Ordering::acquisitions)
        .description("owner leases of STRICT tags and sequence groups this server acquired")
        .register(registry);
    Timer gaps =
        Timer.builder("leaf.ordering.failover.gap")
            .description(
                "how long calls on a STRICT tag (or a sequence group) found no owner to serve them"
                    + " here, per episode: a new owner's wait-out, a failover")
            .register(registry);
    ordering.onFailoverGap(nanos -> gaps.record(nanos, TimeUnit.NANOSECONDS));
    Gauge.builder("leaf.sequence.groups.owned", ordering, Ordering::sequenceGroupsOwned)
        .description("sequence groups of STRICT tags whose owner lease this server holds now")
        .register(registry);
  }

  /** HikariCP's own pool meters ({@code hikaricp.connections.*}). */
  public void watchPool(HikariDataSource pool) {
    pool.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(registry));
  }

  /** Where each token's IDs are counted ({@code leaf.token.ids}). */
  public TokenMeters tokenMeters() {
    return tokenCounters;
  }

  /** Calls refused so far, by the flag of the limit that refused them (every limit, from 0). */
  public Map<String, Long> refusals() {
    Map<String, Long> out = new TreeMap<>();
    for (Counter c : registry.find(LimitRefusals.NAME).counters()) {
      out.merge(c.getId().getTag("limit"), (long) c.count(), Long::sum);
    }
    return out;
  }

  /** A refusal outside gRPC (an HTTP connection or request) by the limit {@code flag} sets. */
  public void limitRefused(String flag) {
    LimitRefusals.counter(registry, flag).increment();
  }

  @Override
  public void segmentLoaded(boolean first, long nanos, RuntimeException failure) {
    loads(outcome(failure), first).record(nanos, TimeUnit.NANOSECONDS);
  }

  private Timer loads(String outcome, boolean first) {
    return Timer.builder(SEGMENT_LOADS)
        .description("segment loads from the database, by outcome")
        .tag("outcome", outcome)
        .tag("kind", first ? "first" : "served")
        .publishPercentileHistogram()
        .register(registry);
  }

  @Override
  public void missingTagHit() {
    missingTagHits.increment();
  }

  @Override
  public void segmentWaited() {
    segmentWaits.increment();
  }

  @Override
  public void segmentDropped() {
    segmentDrops.increment();
  }

  @Override
  public void segmentRewound() {
    segmentRewinds.increment();
  }

  static String outcome(RuntimeException failure) {
    if (failure == null) {
      return "loaded";
    }
    if (failure instanceof TagNotFoundException) {
      return "not_found";
    }
    if (failure instanceof IdOverflowException) {
      return "out_of_range";
    }
    if (failure instanceof StoreUnavailableException) {
      return "unavailable";
    }
    if (failure instanceof StoreRejectedException || failure instanceof InvalidTagStateException) {
      return "rejected";
    }
    return "error";
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
