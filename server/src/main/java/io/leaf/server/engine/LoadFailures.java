package io.leaf.server.engine;

import com.google.common.base.Ticker;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.store.WriteConflictException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records what a failed segment load leaves behind (the tag's back-off, or its {@link MissingTags}
 * entry) and rate-limits the log line it may bring.
 */
final class LoadFailures {
  private static final Logger log = LoggerFactory.getLogger(SegmentLoader.class);
  private static final long WARN_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final Ticker ticker;
  private final EngineConfig config;
  private final TagTable tags;

  /** When the next first-failure line may be logged (ticker time). */
  private final AtomicLong nextWarnNanos = new AtomicLong();

  private final AtomicInteger suppressedWarnings = new AtomicInteger();

  LoadFailures(Ticker ticker, EngineConfig config, TagTable tags) {
    this.ticker = ticker;
    this.config = config;
    this.tags = tags;
    nextWarnNanos.set(ticker.read());
  }

  /**
   * Logs a tag's first failed load, at most one line per {@link #WARN_PERIOD_NANOS} server-wide: in
   * an outage every served tag starts failing at once, and the database's state is the server's to
   * report (one line per change), not one line per tag.
   */
  void warnLimited(String warning) {
    long now = ticker.read();
    long next = nextWarnNanos.get();
    if (now - next < 0 || !nextWarnNanos.compareAndSet(next, now + WARN_PERIOD_NANOS)) {
      suppressedWarnings.incrementAndGet();
      return;
    }
    int others = suppressedWarnings.getAndSet(0);
    log.warn(
        others == 0
            ? warning
            : warning
                + " (and "
                + others
                + " other tags' loads started"
                + " failing since the last such line)");
  }

  /**
   * A first load failed: the buffer goes at once, so no name holds a buffer or an exception beyond
   * it. What to answer meanwhile (NOT_FOUND, or the failure during its back-off) is a bounded entry
   * that lives at most --missing-tag-ttl. The caller holds the stripe lock; returns the line to
   * log.
   */
  String firstFailedLocked(TagBuffer b, RuntimeException failure, boolean outageOver) {
    int failures =
        outageOver
            ? 0
            : tags.missing()
                .add(
                    b.bizTag(),
                    failure,
                    ticker.read(),
                    config.backoff().min().toNanos(),
                    config.backoff().max().toNanos());
    if (failure instanceof TagNotFoundException) {
      tags.served().forget(b.bizTag());
    }
    tags.removeLocked(b);
    return warning(b.bizTag(), failure, failures);
  }

  /**
   * A reload failed: the tag backs off. The caller holds the stripe lock; returns the line to log.
   */
  String failedLocked(TagBuffer b, RuntimeException failure, boolean outageOver) {
    int failures =
        outageOver
            ? 0
            : b.onLoadFailed(
                failure,
                ticker.read(),
                config.backoff().min().toNanos(),
                config.backoff().max().toNanos());
    return warning(b.bizTag(), failure, failures);
  }

  /**
   * The line to log for a failed load, or null. One line when a tag's loads start failing ({@code
   * failures} in a row is 1); the retries that follow while the database stays down are the
   * server's database state to report (LeafServer), not one line each.
   */
  private static String warning(String bizTag, RuntimeException failure, int failures) {
    if (failure instanceof WriteConflictException) {
      return "loading a segment of "
          + bizTag
          + " lost its write conflicts (the next request"
          + " tries again): "
          + failure.getMessage();
    }
    return failure instanceof StoreUnavailableException && failures == 1
        ? "loading a segment of "
            + bizTag
            + " failed (retrying with back-off): "
            + failure.getMessage()
        : null;
  }
}
