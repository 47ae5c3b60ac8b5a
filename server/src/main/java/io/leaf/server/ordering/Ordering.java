package io.leaf.server.ordering;

import com.google.common.base.Ticker;
import io.grpc.ManagedChannel;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.leaf.server.config.OrderingConfig;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.logging.WarnLimiter;
import io.leaf.server.sequence.MemorySectionStore;
import io.leaf.server.sequence.SectionStore;
import io.leaf.server.sequence.Sequences;
import io.leaf.server.store.SegmentStore;
import io.leaf.v1.LeafServiceGrpc;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
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
  private final StrictTags groups;
  private final OrderingStore groupLeases;
  private final Forwarder forwarder;
  private final OrderingAdmin admin;
  private final Sequences sequences;
  private final SequenceCalls sequenceCalls;
  private final RoutedIds routed;
  private final AutoCloseable credentials;
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

  /**
   * Where orderings keep their state: tag leases, sequence group leases and sections, and the tags'
   * own rows.
   */
  public record Stores(
      OrderingStore ordering, OrderingStore groups, SectionStore sections, SegmentStore tags) {}

  /**
   * How a call reaches a tag's owner: a channel to another server's advertised address, the longest
   * a forwarded call waits ({@code --max-wait}), and what the channels need closed after them
   * (their TLS credentials' refresh).
   */
  public record Forwarding(
      Duration maxWait,
      int maxBatch,
      Function<String, ManagedChannel> connect,
      AutoCloseable credentials) {}

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
    Executor leaseStatements = store instanceof MemoryOrderingStore ? Runnable::run : executor;
    this.strict =
        new StrictTags(
            store,
            config.advertiseAddress(),
            config.tagLeaseTtl(),
            ticker,
            leaseStatements,
            tag -> evictTerm(allocator, tag));
    // A group's sections load per owner term (Section): nothing to drop at a new term.
    this.groups =
        new StrictTags(
            stores.groups(),
            config.advertiseAddress(),
            config.tagLeaseTtl(),
            ticker,
            leaseStatements,
            group -> {});
    this.held = HeldCalls.onOwnTimer(config.maxHeldStrictCalls());
    this.strict.holdWith(held);
    this.groups.holdWith(held);
    this.forwarder =
        new Forwarder(
            forwarding.maxWait(),
            forwarding.maxBatch(),
            config.maxHeldStrictCalls(),
            tag -> forwarded.incrementAndGet(),
            forwarding.connect());
    this.routed = new RoutedIds(strict, forwarder, ticker);
    this.credentials = forwarding.credentials();
    this.admin = new OrderingAdmin(store, tags, strict, executor, executor);
    this.sections = sections;
    this.groupLeases = stores.groups();
    this.sequences =
        new Sequences(
            sections,
            config.sequenceMaxKeys(),
            ticker,
            sections instanceof MemorySectionStore ? Runnable::run : executor);
    this.sequenceCalls =
        new SequenceCalls(
            new SequenceCalls.Owners(strict, groups), forwarder, sequences, tags, executor, ticker);
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
    groups.boundTo(boundPort);
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
        groupLeases.createSchemaIfMissing();
        sections.createSchemaIfMissing();
        sectionsReady = true;
      }
    } catch (RuntimeException e) {
      warn("the sequences' tables cannot be created now: {}{}", e);
    }
    try {
      groups.tick();
    } catch (RuntimeException e) {
      warn("sequence group leases: {}{}", e);
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
    return routed.nextId(bizTag, local);
  }

  @Override
  public CompletableFuture<String> nextFormattedId(
      String bizTag, Supplier<CompletableFuture<String>> local) {
    return routed.nextFormattedId(bizTag, local);
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

  /** Owner terms this server began, of STRICT tags and of sequence groups. */
  public long acquisitions() {
    return strict.acquisitions() + groups.acquisitions();
  }

  /**
   * Hears, in nanoseconds, of each time calls on a STRICT tag or a sequence group found no owner to
   * serve them here (a wait-out, a failover), once a call is routed to an owner again.
   */
  public void onFailoverGap(LongConsumer nanos) {
    strict.onGap(nanos);
    groups.onGap(nanos);
  }

  /** Sequence groups whose lease this server holds now. */
  public int sequenceGroupsOwned() {
    return groups.holding();
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
    groups.releaseAll();
    forwarder.close();
    try {
      credentials.close();
    } catch (Exception e) {
      log.warn("closing the forwarding channels' credentials: {}", e.toString());
    }
    held.close();
    executor.shutdownNow();
  }
}
