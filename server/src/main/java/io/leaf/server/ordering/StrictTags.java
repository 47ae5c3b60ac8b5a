package io.leaf.server.ordering;

import com.google.common.base.Ticker;
import io.grpc.Context;
import io.grpc.Deadline;
import io.leaf.server.logging.WarnLimiter;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
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
  /*
   * Knowledge of a tag's ordering: a read sent at t is trusted until t + valid (a fifth of the TTL
   * short of it), so SetOrdering, which waits a whole TTL after its write before returning, knows
   * that every server has read the new ordering (or has no trusted knowledge) before any call sent
   * after it returns is served. A tag not asked about has no knowledge: its first call reads it.
   * The price: a server that cannot read leaf_tag_lease for longer than that serves no tag.
   */

  private static final Logger log = LoggerFactory.getLogger(StrictTags.class);

  /**
   * Tags whose knowledge this server keeps at once. At the limit the knowledge of tags that are not
   * STRICT is dropped (it is read again on their next call), so a flood of names costs a bounded
   * heap and no tag is refused; only STRICT tags beyond it are refused.
   */
  static final int MAX_KNOWN = 10_000;

  /** How soon a call refused for want of an owner is routed again, at most (a tenth of the TTL). */
  static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private static final class Known {
    volatile TagOrdering ordering = TagOrdering.PER_SERVER;
    volatile long validUntil;
    volatile long lastUsed;
  }

  private final OrderingStore store;

  /** Resolved once the port is bound when {@code --port 0} left the port unknown. */
  private volatile String self;

  private final Duration ttl;

  /** An owner lease's life without renewal: half the TTL, the other half is the wait-out. */
  private final Duration lease;

  private final long validNanos;
  private final Ticker ticker;
  private final Consumer<String> evict;
  private final Map<String, Known> known = new ConcurrentHashMap<>();
  private final Map<String, TagOwnership> owners = new ConcurrentHashMap<>();
  private final PerTagQueue queue;
  private final OwnerLeaseRenewal leases;
  private final AtomicLong acquisitions = new AtomicLong();
  private volatile HeldCalls held = HeldCalls.NONE;

  /** The table's failures repeat every sixth of the TTL while it is down: once a minute. */
  private final WarnLimiter readWarnings;

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
    this.validNanos = ttl.toNanos() - ttl.toNanos() / 5;
    this.ticker = ticker;
    this.readWarnings = new WarnLimiter(ticker, WarnLimiter.ONCE_A_MINUTE);
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
    Deadline deadline = Context.current().getDeadline();
    long budget = 3 * ttl.toNanos();
    if (deadline != null) {
      budget = Math.min(budget, deadline.timeRemaining(TimeUnit.NANOSECONDS));
    }
    return route(bizTag, forwarded, 0, now + budget);
  }

  /** Holds calls that can be served shortly on {@code calls} (before the server starts). */
  void holdWith(HeldCalls calls) {
    this.held = calls;
  }

  private CompletableFuture<Route> route(String bizTag, boolean forwarded, int depth, long until) {
    long now = ticker.read();
    Known k = known.get(bizTag);
    if (k == null || now - k.validUntil >= 0) {
      if (depth > 1) {
        return RouteRefusals.unreadable(bizTag);
      }
      if (k == null && known.size() >= MAX_KNOWN) {
        known
            .entrySet()
            .removeIf(
                e ->
                    e.getValue().ordering != TagOrdering.STRICT && !owners.containsKey(e.getKey()));
      }
      if (k == null && known.size() >= MAX_KNOWN) {
        return RouteRefusals.noRoom(bizTag, MAX_KNOWN);
      }
      return queue
          .once(bizTag, () -> readRow(bizTag))
          .thenCompose(v -> route(bizTag, forwarded, depth + 1, until));
    }
    k.lastUsed = now;
    switch (k.ordering) {
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
        return CompletableFuture.completedFuture(
            Route.issue(own, own.issuingTerm(() -> evict.accept(bizTag))));
      case WAIT_OUT:
        {
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
        return CompletableFuture.completedFuture(Route.forward(own.knownOwner()));
      default:
        if (forwarded || depth > 2) {
          // Sent here as the owner, or no owner after acquiring: often an acquisition in flight
          // (here or elsewhere) that is decided within a round trip; asked again shortly.
          String owner = own.knownOwner();
          return held.<Route>hold(
                  bizTag,
                  Math.min(ttl.toNanos() / 10, RETRY_NANOS),
                  Math.min(until, now + ttl.toNanos()) - now,
                  () -> route(bizTag, forwarded, 0, until))
              .orElseGet(() -> RouteRefusals.notOwner(bizTag, self, owner));
        }
        return queue
            .once(bizTag, () -> acquire(bizTag, own))
            .thenCompose(v -> route(bizTag, forwarded, depth + 1, until));
    }
  }

  /** The tag's ordering as this server may trust it now (read first when it may not). */
  public CompletableFuture<TagOrdering> ordering(String bizTag) {
    Known k = known.get(bizTag);
    if (k != null && ticker.read() - k.validUntil < 0) {
      return CompletableFuture.completedFuture(k.ordering);
    }
    return queue.once(bizTag, () -> readRow(bizTag)).thenApply(v -> knownOrdering(bizTag));
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
    Known k = known.get(bizTag);
    return k == null ? TagOrdering.PER_SERVER : k.ordering;
  }

  /**
   * What the monitor shows of {@code bizTag}'s ordering as this server knows it now: empty for
   * PER_SERVER; for STRICT the owner, marked when it is this server.
   */
  public String describe(String bizTag) {
    Known k = known.get(bizTag);
    if (k == null || k.ordering == TagOrdering.PER_SERVER) {
      return "";
    }
    if (k.ordering != TagOrdering.STRICT) {
      return k.ordering.name();
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
    refreshKnown(now, idle);
  }

  /** Ends every term this server holds and gives the leases back (a graceful stop). */
  public void releaseAll() {
    leases.releaseAll();
  }

  private void refreshKnown(long now, long idle) {
    known
        .entrySet()
        .removeIf(
            e ->
                now - e.getValue().lastUsed > idle
                    && !(owners.containsKey(e.getKey()) && owners.get(e.getKey()).holds(now)));
    owners.keySet().removeIf(t -> !known.containsKey(t));
    if (known.isEmpty()) {
      return;
    }
    long sent = ticker.read();
    List<LeaseRow> rows;
    try {
      rows = store.readAll();
      readWarnings.reset();
    } catch (RuntimeException ex) {
      long skipped = readWarnings.acquire();
      if (skipped >= 0) {
        log.warn(
            "reading leaf_tag_lease failed: {}{}", ex.getMessage(), WarnLimiter.heldBack(skipped));
      }
      return;
    }
    Map<String, LeaseRow> byTag = new HashMap<>();
    rows.forEach(r -> byTag.put(r.bizTag(), r));
    for (String tag : known.keySet()) {
      apply(byTag.getOrDefault(tag, LeaseRow.none(tag)), sent);
    }
  }

  private void readRow(String bizTag) {
    long sent = ticker.read();
    apply(store.read(bizTag), sent);
  }

  private void apply(LeaseRow row, long sent) {
    Known k =
        known.computeIfAbsent(
            row.bizTag(),
            t -> {
              Known fresh = new Known();
              fresh.lastUsed = sent; // not pruned before its first call has used it
              return fresh;
            });
    k.ordering = row.ordering();
    k.validUntil = sent + validNanos;
    if (row.ordering() == TagOrdering.STRICT) {
      TagOwnership own =
          owners.computeIfAbsent(row.bizTag(), t -> new TagOwnership(lease.toNanos()));
      boolean ours = row.owner().equals(self) && row.epoch() == own.heldEpoch();
      if (!row.owner().isEmpty() && !ours && row.remainingMs() > 0) {
        // A row naming this address with an epoch this process never held is known like any
        // other owner's, and refused as such (RouteRefusals.sameAddress) until it expires.
        own.ownedBy(row.owner(), sent, row.remainingMs() * 1_000_000);
      } else {
        own.forgetOwner();
      }
    }
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
      readRow(bizTag);
    }
  }
}
