package io.leaf.server.ordering;

import com.google.common.base.Ticker;
import io.leaf.server.logging.WarnLimiter;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this server knows of each tag's row in {@code leaf_tag_lease}: the ordering, trusted for
 * four fifths of the TTL after the read was sent, and for a STRICT tag the owner the row names
 * (told to the tag's {@link TagOwnership}).
 *
 * <p>Thread-safe; reads run on the caller's thread.
 */
final class TagKnowledge {
  /*
   * A read sent at t is trusted until t + valid (a fifth of the TTL short of it), so SetOrdering,
   * which waits a whole TTL after its write before returning, knows that every server has read the
   * new ordering (or has no trusted knowledge) before any call sent after it returns is served. A
   * tag not asked about has no knowledge: its first call reads it. The price: a server that cannot
   * read leaf_tag_lease for longer than that serves no tag.
   */

  private static final Logger log = LoggerFactory.getLogger(StrictTags.class);

  /**
   * Tags whose knowledge this server keeps at once. At the limit the knowledge of tags that are not
   * STRICT is dropped (it is read again on their next call), so a flood of names costs a bounded
   * heap and no tag is refused; only STRICT tags beyond it are refused.
   */
  static final int MAX_KNOWN = 10_000;

  private static final class Known {
    volatile TagOrdering ordering = TagOrdering.PER_SERVER;
    volatile long validUntil;
    volatile long lastUsed;
  }

  private final OrderingStore store;
  private final long validNanos;
  private final long leaseNanos;
  private final Ticker ticker;
  private final Map<String, TagOwnership> owners;
  private final Supplier<String> self;
  private final Map<String, Known> known = new ConcurrentHashMap<>();

  /** The table's failures repeat every sixth of the TTL while it is down: once a minute. */
  private final WarnLimiter readWarnings;

  /**
   * @param owners the tags' ownerships, shared with {@link StrictTags}; an owner read is told here
   * @param self this server's advertised address
   */
  TagKnowledge(
      OrderingStore store,
      Duration ttl,
      Ticker ticker,
      Map<String, TagOwnership> owners,
      Supplier<String> self) {
    this.store = store;
    this.validNanos = ttl.toNanos() - ttl.toNanos() / 5;
    this.leaseNanos = ttl.dividedBy(2).toNanos();
    this.ticker = ticker;
    this.owners = owners;
    this.self = self;
    this.readWarnings = new WarnLimiter(ticker, WarnLimiter.ONCE_A_MINUTE);
  }

  /** The tag's ordering when trusted at {@code now} (and marks the tag used); null when not. */
  TagOrdering trusted(String bizTag, long now) {
    Known k = known.get(bizTag);
    if (k == null || now - k.validUntil >= 0) {
      return null;
    }
    k.lastUsed = now;
    return k.ordering;
  }

  /** The ordering last read for the tag, trusted or not; PER_SERVER when never read. */
  TagOrdering last(String bizTag) {
    Known k = known.get(bizTag);
    return k == null ? TagOrdering.PER_SERVER : k.ordering;
  }

  /**
   * Whether the tag's knowledge may be kept: at the limit the knowledge of tags neither STRICT nor
   * owned is dropped first; false when the limit is still reached.
   */
  boolean room(String bizTag) {
    if (known.containsKey(bizTag) || known.size() < MAX_KNOWN) {
      return true;
    }
    known
        .entrySet()
        .removeIf(
            e -> e.getValue().ordering != TagOrdering.STRICT && !owners.containsKey(e.getKey()));
    return known.size() < MAX_KNOWN;
  }

  /** Reads the tag's row now (a statement). */
  void read(String bizTag) {
    long sent = ticker.read();
    apply(store.read(bizTag), sent);
  }

  /**
   * Forgets tags unused for {@code idle} (unless this server holds their lease), then reads every
   * row again in one statement; a failure is logged (at most once a minute) and the knowledge
   * simply ages.
   */
  void refresh(long now, long idle) {
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
            "reading the owner leases failed: {}{}",
            ex.getMessage(),
            WarnLimiter.heldBack(skipped));
      }
      return;
    }
    Map<String, LeaseRow> byTag = new HashMap<>();
    rows.forEach(r -> byTag.put(r.bizTag(), r));
    for (String tag : known.keySet()) {
      apply(byTag.getOrDefault(tag, store.missing(tag)), sent);
    }
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
      TagOwnership own = owners.computeIfAbsent(row.bizTag(), t -> new TagOwnership(leaseNanos));
      boolean ours = row.owner().equals(self.get()) && row.epoch() == own.heldEpoch();
      if (!row.owner().isEmpty() && !ours && row.remainingMs() > 0) {
        // A row naming this address with an epoch this process never held is known like any
        // other owner's, and refused as such (RouteRefusals.sameAddress) until it expires.
        own.ownedBy(row.owner(), sent, row.remainingMs() * 1_000_000);
      } else {
        own.forgetOwner();
      }
    }
  }
}
