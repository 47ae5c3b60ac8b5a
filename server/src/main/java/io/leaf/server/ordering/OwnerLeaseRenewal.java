package io.leaf.server.ordering;

import com.google.common.base.Ticker;
import io.leaf.server.logging.WarnLimiter;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the owner leases of STRICT tags this server holds: renews those in use, gives back those
 * idle for three TTLs, and gives back all of them on a graceful stop.
 */
final class OwnerLeaseRenewal {
  private static final Logger log = LoggerFactory.getLogger(StrictTags.class);

  private final OrderingStore store;
  private final Supplier<String> self;
  private final Duration ttl;
  private final Ticker ticker;
  private final Map<String, TagOwnership> owners;

  /** The table's failures repeat every sixth of the TTL while it is down: once a minute. */
  private final WarnLimiter renewWarnings;

  OwnerLeaseRenewal(
      OrderingStore store,
      Supplier<String> self,
      Duration ttl,
      Ticker ticker,
      Map<String, TagOwnership> owners) {
    this.store = store;
    this.self = self;
    this.ttl = ttl;
    this.ticker = ticker;
    this.owners = owners;
    this.renewWarnings = new WarnLimiter(ticker, WarnLimiter.ONCE_A_MINUTE);
  }

  /**
   * Renews the leases held and in use at {@code now}, all in one call of the store; releases those
   * unused for {@code idle}.
   */
  void renewOrRelease(long now, long idle) {
    Map<String, Long> held = new HashMap<>();
    for (Map.Entry<String, TagOwnership> e : owners.entrySet()) {
      TagOwnership own = e.getValue();
      long epoch = own.epoch();
      if (epoch == 0 || !own.holds(now)) {
        continue;
      }
      if (now - own.lastUsedNanos() > idle) {
        release(e.getKey(), own, epoch);
        continue;
      }
      held.put(e.getKey(), epoch);
    }
    if (!held.isEmpty()) {
      renew(held);
    }
  }

  /** Ends every term this server holds and gives the leases back. */
  void releaseAll() {
    for (Map.Entry<String, TagOwnership> e : owners.entrySet()) {
      long epoch = e.getValue().epoch();
      if (epoch != 0) {
        release(e.getKey(), e.getValue(), epoch);
      }
    }
  }

  private void release(String bizTag, TagOwnership own, long epoch) {
    own.refused(epoch);
    try {
      store.release(bizTag, self.get(), epoch);
    } catch (RuntimeException ex) {
      log.warn("release of tag {} failed: {}", bizTag, ex.getMessage());
    }
  }

  private void renew(Map<String, Long> held) {
    long sent = ticker.read();
    Set<String> renewed;
    try {
      renewed = store.renewAll(held, self.get(), ttl);
      renewWarnings.reset();
    } catch (RuntimeException ex) {
      // The fences run out on their own if no renewal gets through.
      long skipped = renewWarnings.acquire();
      if (skipped >= 0) {
        log.warn(
            "renewal of {} owner leases failed: {}{}",
            held.size(),
            ex.getMessage(),
            WarnLimiter.heldBack(skipped));
      }
      return;
    }
    long acked = ticker.read();
    held.forEach(
        (key, epoch) -> {
          TagOwnership own = owners.get(key);
          if (own == null) {
            return;
          }
          if (renewed.contains(key)) {
            own.renewed(epoch, sent, acked);
          } else if (own.heldEpoch() > epoch) {
            // This server acquired it again meanwhile (its fence had lapsed): nothing was lost.
            own.refused(epoch);
          } else {
            own.refused(epoch);
            log.warn(
                "lease of {} (epoch {}) lost: the row no longer names this server", key, epoch);
          }
        });
  }
}
