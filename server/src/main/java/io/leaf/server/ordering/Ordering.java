package io.leaf.server.ordering;

import com.google.common.base.Ticker;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.leaf.server.config.OrderingConfig;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.logging.WarnLimiter;
import io.leaf.server.scattered.ScatteredIds;
import io.leaf.server.sequence.MemorySectionStore;
import io.leaf.server.sequence.SectionStore;
import io.leaf.server.sequence.Sequences;
import io.leaf.server.store.SegmentStore;
import io.leaf.v1.FormattedId;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ordering feature as the server wires it: LeafService wrapped so STRICT tags keep real-time
 * order and SCATTERED tags' IDs leave scattered ({@link #wrap}).
 *
 * <p>The owner leases are renewed every sixth of {@code --tag-lease-ttl} from {@link #start}, and
 * the forwarding channels closed by {@link #close()}.
 */
public final class Ordering implements OrderedIds, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Ordering.class);

  private final OrderingStore store;
  private final StrictTags strict;
  private final Forwarder forwarder;
  private final OrderingAdmin admin;
  private final Sequences sequences;
  private final SequenceCalls sequenceCalls;
  private final SectionStore sections;
  private volatile boolean sectionsReady;
  private final ScheduledExecutorService executor;
  private final HeldCalls held;
  private final Ticker ticker;
  private final AtomicLong forwarded = new AtomicLong();
  private volatile boolean schemaReady;

  /** The tick's own failures repeat every sixth of the TTL while the database is down. */
  private final WarnLimiter tickWarnings;

  private ScheduledFuture<?> ticking;

  /** Where orderings keep their state: tag leases, sequence sections, and the tags' own rows. */
  public record Stores(OrderingStore ordering, SectionStore sections, SegmentStore tags) {}

  /**
   * How a call reaches a tag's owner: a channel to another server's advertised address, and the
   * longest a forwarded call waits ({@code --max-wait}).
   */
  public record Forwarding(
      Duration maxWait, int maxBatch, Function<String, ManagedChannel> connect) {}

  /**
   * @param stores the lease, section and tag stores
   * @param executor runs the lease statements and timers; {@link #close()} shuts it down
   * @param forwarding the channels to other servers and the forwarded calls' wait
   */
  public Ordering(
      Stores stores,
      SegmentAllocator allocator,
      OrderingConfig config,
      Ticker ticker,
      ScheduledExecutorService executor,
      Forwarding forwarding) {
    OrderingStore store = stores.ordering();
    SectionStore sections = stores.sections();
    SegmentStore tags = stores.tags();
    this.store = store;
    this.ticker = ticker;
    this.tickWarnings = new WarnLimiter(ticker, WarnLimiter.ONCE_A_MINUTE);
    this.executor = executor;
    // Orderings kept in memory (tests, benchmarks) are read inline: no I/O, and the first call
    // of a tag reaches the engine before its handler returns, as without orderings.
    this.strict =
        new StrictTags(
            store,
            config.advertiseAddress(),
            config.tagLeaseTtl(),
            ticker,
            store instanceof MemoryOrderingStore ? Runnable::run : executor,
            tag -> evictTerm(allocator, tag));
    this.held = HeldCalls.onOwnTimer(config.maxHeldStrictCalls());
    this.strict.holdWith(held);
    this.forwarder =
        new Forwarder(
            forwarding.maxWait(),
            forwarding.maxBatch(),
            config.maxHeldStrictCalls(),
            tag -> forwarded.incrementAndGet(),
            forwarding.connect());
    this.admin = new OrderingAdmin(store, tags, strict, executor, executor);
    this.sections = sections;
    this.sequences =
        new Sequences(
            sections,
            config.sequenceMaxKeys(),
            ticker,
            sections instanceof MemorySectionStore ? Runnable::run : executor);
    this.sequenceCalls = new SequenceCalls(strict, forwarder, sequences, tags, executor, ticker);
  }

  /**
   * Drops what the engine holds for {@code tag} and its formatted numbers' period rows ({@code
   * tag#…}), so a new owner term takes only segments taken after it began.
   */
  private static void evictTerm(SegmentAllocator allocator, String tag) {
    allocator.cached(tag).ifPresent(allocator::evict);
    String rows = tag + "#";
    for (String row : allocator.cachedTags(Integer.MAX_VALUE, n -> n.startsWith(rows))) {
      allocator.cached(row).ifPresent(allocator::evict);
    }
  }

  /** LeafService with ordering, marked calls recognised. */
  public ServerServiceDefinition wrap(LeafServiceGrpc.LeafServiceImplBase plain) {
    return ServerInterceptors.intercept(
        new OrderedLeafService(plain, strict, forwarder, admin, sequenceCalls, ticker),
        new OwnerHeader(),
        new ForwardedMark());
  }

  /**
   * Names this server by {@code boundPort} when {@code --port 0} left its advertised port unknown;
   * called once the port is bound, before any call (gRPC or HTTP) can be routed.
   */
  public void boundTo(int boundPort) {
    strict.boundTo(boundPort);
  }

  /** Creates the table when missing, then keeps the leases and knowledge fresh. */
  public synchronized void start() {
    long every = strict.lease().toNanos() / 3;
    ticking = executor.scheduleWithFixedDelay(this::tick, 0, every, TimeUnit.NANOSECONDS);
  }

  private void tick() {
    try {
      if (!schemaReady) {
        store.createSchemaIfMissing();
        schemaReady = true;
      }
    } catch (RuntimeException e) {
      warn("leaf_tag_lease cannot be created now: {}{}", e);
    }
    try {
      strict.tick();
    } catch (RuntimeException e) {
      warn("tag leases: {}{}", e);
    }
    try {
      if (!sectionsReady) {
        sections.createSchemaIfMissing();
        sectionsReady = true;
      }
    } catch (RuntimeException e) {
      warn("leaf_sequence_section cannot be created now: {}{}", e);
    }
    try {
      sequences.tick(3 * strict.ttl().toNanos());
    } catch (RuntimeException e) {
      // A task of scheduleWithFixedDelay that throws is never run again: the leases would lapse.
      warn("sequences: {}{}", e);
    }
  }

  private void warn(String format, RuntimeException e) {
    long skipped = tickWarnings.acquire();
    if (skipped >= 0) {
      log.warn(format, e.getMessage(), WarnLimiter.heldBack(skipped));
    }
  }

  /** {@link StrictTags#describe}: a tag's ordering and owner for the monitor page. */
  public String describe(String bizTag) {
    return strict.describe(bizTag);
  }

  @Override
  public CompletableFuture<Long> nextId(String bizTag, Supplier<CompletableFuture<Long>> local) {
    return issue(
        bizTag,
        local,
        LeafServiceGrpc.getNextIdMethod(),
        NextIdResponse::getId,
        ScatteredIds::scatter);
  }

  @Override
  public CompletableFuture<String> nextFormattedId(
      String bizTag, Supplier<CompletableFuture<String>> local) {
    return issue(
        bizTag,
        local,
        LeafServiceGrpc.getNextFormattedIdMethod(),
        FormattedId::getValue,
        UnaryOperator.identity());
  }

  /**
   * The ID by the tag's route ({@code scatter} applied to a SCATTERED tag's); cancelling the answer
   * cancels the work under it (a waiting call's slot is freed when an HTTP client hangs up).
   */
  private <R, T> CompletableFuture<T> issue(
      String bizTag,
      Supplier<CompletableFuture<T>> local,
      MethodDescriptor<NextIdRequest, R> method,
      Function<R, T> value,
      UnaryOperator<T> scatter) {
    CompletableFuture<Route> routed = strict.route(bizTag, false);
    if (routed.isDone()
        && !routed.isCompletedExceptionally()
        && routed.join().kind() == Route.Kind.PER_SERVER) {
      return local.get();
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    AtomicReference<CompletableFuture<T>> under = new AtomicReference<>();
    routed.whenComplete(
        (route, e) -> {
          if (e != null) {
            result.completeExceptionally(e.getCause() != null ? e.getCause() : e);
            return;
          }
          CompletableFuture<T> work;
          try {
            work = serve(bizTag, route, local, method, value, scatter);
          } catch (RuntimeException failed) {
            result.completeExceptionally(failed);
            return;
          }
          under.set(work);
          if (result.isCancelled()) {
            work.cancel(false);
          }
          work.whenComplete(
              (v, failed) -> {
                if (failed == null) {
                  result.complete(v);
                } else {
                  result.completeExceptionally(failed);
                }
              });
        });
    result.whenComplete(
        (v, e) -> {
          CompletableFuture<T> work = under.get();
          if (result.isCancelled() && work != null) {
            work.cancel(false);
          }
        });
    return result;
  }

  private <R, T> CompletableFuture<T> serve(
      String bizTag,
      Route route,
      Supplier<CompletableFuture<T>> local,
      MethodDescriptor<NextIdRequest, R> method,
      Function<R, T> value,
      UnaryOperator<T> scatter) {
    return switch (route.kind()) {
      case PER_SERVER -> local.get();
      case SCATTERED -> local.get().thenApply(scatter);
      case ISSUE ->
          local
              .get()
              .thenApply(
                  v -> {
                    if (!route.ownership().mayIssue(ticker.read(), route.term())) {
                      throw Status.UNAVAILABLE
                          .withDescription(
                              "tag "
                                  + bizTag
                                  + " is STRICT and this server's owner lease ended before the"
                                  + " answer could leave; retry")
                          .asRuntimeException();
                    }
                    return v;
                  });
      case FORWARD ->
          forwarder
              .call(
                  method,
                  route.owner(),
                  bizTag,
                  NextIdRequest.newBuilder().setBizTag(bizTag).build(),
                  () -> strict.ownerUnreachable(bizTag))
              .thenApply(value);
    };
  }

  @Override
  public CompletableFuture<Long> nextSequence(String bizTag, String key) {
    return sequenceCalls.next(bizTag, key, false);
  }

  /** Keys of sequences held in memory now. */
  public long sequenceKeys() {
    return sequences.keysHeld();
  }

  /** Calls this server forwarded to an owner. */
  public long forwardedCalls() {
    return forwarded.get();
  }

  /** Owner terms this server began. */
  public long acquisitions() {
    return strict.acquisitions();
  }

  /** The owner this server knows for {@code bizTag}; empty when none or not STRICT. */
  public String ownerOf(String bizTag) {
    return strict.ownerOf(bizTag);
  }

  @Override
  public synchronized void close() {
    if (ticking != null) {
      ticking.cancel(false);
    }
    strict.releaseAll();
    forwarder.close();
    held.close();
    executor.shutdownNow();
  }
}
