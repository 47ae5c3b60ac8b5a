package io.leaf.server.ordering;

import com.google.common.base.Ticker;
import io.leaf.server.logging.WarnLimiter;
import java.time.Duration;
import java.util.Map;
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

  /** Renews the leases held and in use at {@code now}; releases those unused for {@code idle}. */
  void renewOrRelease(long now, long idle) {
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
      renew(e.getKey(), own, epoch);
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

  private void renew(String bizTag, TagOwnership own, long epoch) {
    long sent = ticker.read();
    try {
      if (store.renew(bizTag, self.get(), epoch, ttl)) {
        own.renewed(epoch, sent, ticker.read());
        renewWarnings.reset();
      } else if (own.heldEpoch() > epoch) {
        // This server acquired the tag again meanwhile (its fence had lapsed): nothing was lost.
        own.refused(epoch);
      } else {
        own.refused(epoch);
        log.warn(
            "tag {}: owner lease epoch {} lost (the row no longer names this server)",
            bizTag,
            epoch);
      }
    } catch (RuntimeException ex) {
      // The fence runs out on its own if no renewal gets through.
      long skipped = renewWarnings.acquire();
      if (skipped >= 0) {
        log.warn(
            "tag {}: owner lease renewal failed: {}{}",
            bizTag,
            ex.getMessage(),
            WarnLimiter.heldBack(skipped));
      }
    }
  }
}
