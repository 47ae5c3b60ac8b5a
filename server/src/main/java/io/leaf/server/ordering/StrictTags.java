package io.leaf.server.ordering;

import com.google.common.base.Ticker;
import io.grpc.Context;
import io.grpc.Deadline;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides for each call on a tag where it goes ({@link Route}), from this server's knowledge of the
 * tag's ordering and of its owner lease, each checked when the call arrives.
 *
 * <p>Thread-safe. Statements run on {@code database}; {@link #tick()} (every sixth of the TTL)
 * renews the leases held, releases those unused for three TTLs, and refreshes the knowledge.
 */
public final class StrictTags {
  private static final Logger log = LoggerFactory.getLogger(StrictTags.class);

  /** Tags whose knowledge this server keeps at once ({@link TagKnowledge#MAX_KNOWN}). */
  static final int MAX_KNOWN = TagKnowledge.MAX_KNOWN;

  /** How soon a call refused for want of an owner is routed again, at most (a tenth of the TTL). */
  static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final OrderingStore store;

  /** Resolved once the port is bound when {@code --port 0} left the port unknown. */
  private volatile String self;

  private final Duration ttl;

  /** An owner lease's life without renewal: half the TTL, the other half is the wait-out. */
  private final Duration lease;

  private final Ticker ticker;
  private final Consumer<String> evict;
  private final Map<String, TagOwnership> owners = new ConcurrentHashMap<>();
  private final TagKnowledge known;
  private final PerTagQueue queue;
  private final OwnerLeaseRenewal leases;
  private final AtomicLong acquisitions = new AtomicLong();
  private volatile HeldCalls held = HeldCalls.NONE;
  private volatile LongConsumer gaps = nanos -> {};

  /**
   * @param self this server's {@code --advertise-address}
   * @param evict drops what the engine holds for a tag (before a new term's first issue)
   */
  public StrictTags(
      OrderingStore store,
      String self,
      Duration ttl,
      Ticker ticker,
      Executor database,
      Consumer<String> evict) {
    this.store = store;
    this.self = self;
    this.ttl = ttl;
    this.lease = ttl.dividedBy(2);
    this.ticker = ticker;
    this.known = new TagKnowledge(store, ttl, ticker, owners, this::self);
    this.queue = new PerTagQueue(database);
    this.leases = new OwnerLeaseRenewal(store, this::self, lease, ticker, owners);
    this.evict = evict;
  }

  public String self() {
    return self;
  }

  /**
   * Names this server by the port it bound when its address ends in {@code :0} (an ephemeral {@code
   * --port 0} without {@code --advertise-address}); before any call is routed.
   */
  public void boundTo(int port) {
    if (port > 0 && self.endsWith(":0")) {
      self = self.substring(0, self.length() - 1) + port;
    }
  }

  public Duration ttl() {
    return ttl;
  }

  /** How long an owner lease lives without renewal (half the TTL); renewed every third of it. */
  public Duration lease() {
    return lease;
  }

  /** Leases this server holds now. */
  public int holding() {
    long now = ticker.read();
    return (int) owners.values().stream().filter(o -> o.holds(now)).count();
  }

  /** Acquisitions this server won (a new owner term each). */
  public long acquisitions() {
    return acquisitions.get();
  }

  /**
   * Where a call on {@code bizTag} goes; {@code forwarded}: it came from another server. A call
   * this server can serve shortly is held until then within its deadline ({@link #holdWith}).
   */
  public CompletableFuture<Route> route(String bizTag, boolean forwarded) {
    long now = ticker.read();
    // The hot path of most tags: a trusted PER_SERVER or SCATTERED ordering needs no deadline.
    TagOrdering trusted = known.trusted(bizTag, now);
    if (trusted == TagOrdering.PER_SERVER) {
      return CompletableFuture.completedFuture(Route.PER_SERVER);
    }
    if (trusted == TagOrdering.SCATTERED) {
      return CompletableFuture.completedFuture(Route.SCATTERED);
    }
    Deadline deadline = Context.current().getDeadline();
    long budget = 3 * ttl.toNanos();
    if (deadline != null) {
      budget = Math.min(budget, deadline.timeRemaining(TimeUnit.NANOSECONDS));
    }
    if (forwarded) {
      budget = Math.min(budget, ttl.toNanos()); // asked again for up to a TTL, no longer
    }
    return route(bizTag, forwarded, 0, now + budget);
  }

  /**
   * Hears, in nanoseconds, of each time a tag's calls found no owner to serve them (a wait-out, a
   * failover) that ended with a call routed to one.
   */
  public void onGap(LongConsumer nanos) {
    this.gaps = nanos;
  }

  /** Holds calls that can be served shortly on {@code calls} (before the server starts). */
  void holdWith(HeldCalls calls) {
    this.held = calls;
  }

  private CompletableFuture<Route> route(String bizTag, boolean forwarded, int depth, long until) {
    long now = ticker.read();
    TagOrdering ordering = known.trusted(bizTag, now);
    if (ordering == null) {
      if (depth > 1) {
        return RouteRefusals.unreadable(bizTag);
      }
      if (!known.room(bizTag)) {
        return RouteRefusals.noRoom(bizTag, MAX_KNOWN);
      }
      return queue
          .once(bizTag, () -> known.read(bizTag))
          .thenCompose(v -> route(bizTag, forwarded, depth + 1, until));
    }
    switch (ordering) {
      case PER_SERVER:
        return CompletableFuture.completedFuture(Route.PER_SERVER);
      case SCATTERED:
        return CompletableFuture.completedFuture(Route.SCATTERED);
      default:
        break;
    }
    TagOwnership own = owners.computeIfAbsent(bizTag, t -> new TagOwnership(lease.toNanos()));
    switch (own.decide(now)) {
      case ISSUE:
        servedAfterGap(own, now);
        return CompletableFuture.completedFuture(
            Route.issue(own, own.issuingTerm(() -> evict.accept(bizTag))));
      case WAIT_OUT:
        {
          own.unserved(now);
          // Routed again from the start when the wait-out ends: the same fence decides then.
          long wait = own.issueFromNanos() - now;
          return held.<Route>hold(
                  bizTag, wait, until - now, () -> route(bizTag, forwarded, 0, until))
              .orElseGet(() -> RouteRefusals.waitingOut(bizTag, self, wait));
        }
      case FORWARD:
        if (own.knownOwner().equals(self)) {
          return RouteRefusals.sameAddress(bizTag, self, own.knownUntilNanos() - now);
        }
        if (forwarded) {
          return RouteRefusals.notOwner(bizTag, self, own.knownOwner());
        }
        servedAfterGap(own, now);
        return CompletableFuture.completedFuture(Route.forward(own.knownOwner()));
      default:
        if (forwarded || depth > 2) {
          own.unserved(now);
          // Sent here as the owner, or no owner after acquiring: often an acquisition in flight
          // (here or elsewhere) that is decided within a round trip; asked again shortly.
          String owner = own.knownOwner();
          return held.<Route>hold(
                  bizTag,
                  Math.min(ttl.toNanos() / 10, RETRY_NANOS),
                  until - now,
                  () -> route(bizTag, forwarded, 0, until))
              .orElseGet(() -> RouteRefusals.notOwner(bizTag, self, owner));
        }
        return queue
            .once(bizTag, () -> acquire(bizTag, own))
            .thenCompose(v -> route(bizTag, forwarded, depth + 1, until));
    }
  }

  private void servedAfterGap(TagOwnership own, long now) {
    long gap = own.served(now);
    if (gap >= 0) {
      gaps.accept(gap);
    }
  }

  /** The tag's ordering as this server may trust it now (read first when it may not). */
  public CompletableFuture<TagOrdering> ordering(String bizTag) {
    TagOrdering trusted = known.trusted(bizTag, ticker.read());
    if (trusted != null) {
      return CompletableFuture.completedFuture(trusted);
    }
    return queue.once(bizTag, () -> known.read(bizTag)).thenApply(v -> knownOrdering(bizTag));
  }

  /** The owner this server knows for {@code bizTag} (itself while it holds the lease). */
  public String ownerOf(String bizTag) {
    TagOwnership own = owners.get(bizTag);
    if (own == null) {
      return "";
    }
    return own.holds(ticker.read()) ? self : own.knownOwner();
  }

  /** The knowledge this server trusts for {@code bizTag}'s ordering, if any. */
  public TagOrdering knownOrdering(String bizTag) {
    return known.last(bizTag);
  }

  /**
   * What the monitor shows of {@code bizTag}'s ordering as this server knows it now: empty for
   * PER_SERVER; for STRICT the owner, marked when it is this server.
   */
  public String describe(String bizTag) {
    TagOrdering ordering = known.last(bizTag);
    if (ordering == TagOrdering.PER_SERVER) {
      return "";
    }
    if (ordering != TagOrdering.STRICT) {
      return ordering.name();
    }
    String owner = ownerOf(bizTag);
    return "STRICT, owner "
        + (owner.isEmpty() ? "none known" : owner)
        + (owner.equals(self) ? " (this server)" : "");
  }

  /** Forgets the owner of {@code bizTag}: the next call reads the lease again. */
  void ownerUnreachable(String bizTag) {
    TagOwnership own = owners.get(bizTag);
    if (own != null) {
      own.forgetOwner();
    }
  }

  /** Renews held leases, releases idle ones, refreshes the knowledge of tags in use. */
  public void tick() {
    long now = ticker.read();
    long idle = 3 * ttl.toNanos();
    leases.renewOrRelease(now, idle);
    known.refresh(now, idle);
  }

  /** Ends every term this server holds and gives the leases back (a graceful stop). */
  public void releaseAll() {
    leases.releaseAll();
  }

  private void acquire(String bizTag, TagOwnership own) {
    long sent = ticker.read();
    OptionalLong epoch = store.acquire(bizTag, self, own.heldEpoch(), lease);
    if (epoch.isPresent()) {
      own.acquired(epoch.getAsLong(), sent, ticker.read());
      acquisitions.incrementAndGet();
      log.info(
          "tag {}: this server ({}) owns it, epoch {}; issuing after {}",
          bizTag,
          self,
          epoch.getAsLong(),
          lease);
    } else {
      known.read(bizTag);
    }
  }
}
