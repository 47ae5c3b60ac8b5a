package io.leaf.server.ledger;

import io.leaf.server.engine.UnissuedRun;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the unissued rest of each tag back to the database at a graceful stop, once the engine is
 * frozen ({@code SegmentAllocator#freeze}); a tag not handed back keeps its gap, as after kill -9.
 *
 * <p>Each tag is one conditional write ({@link Ledger#handBack}), run one after another on the
 * database executor, within a time budget. A tag is not handed back when another server took a
 * segment since, a reservation moved {@code max_id}, a write failed or no time is left.
 *
 * <p>Why it is safe: the runs were read after every segment was sealed, so none of their IDs left
 * this server; the write changes {@code max_id} only if it still ends the run, so no other server
 * took anything above since. Thread-safe.
 */
public final class HandBack {

  /**
   * What a hand-back did.
   *
   * @param returned tags handed back
   * @param ids IDs handed back
   * @param refused tags whose {@code max_id} had moved on (nothing written)
   * @param failed tags whose write failed (a gap)
   * @param unfinished tags not tried, or not finished, within the budget (a gap)
   */
  public record Result(int returned, long ids, int refused, int failed, int unfinished) {}

  private static final Logger log = LoggerFactory.getLogger(HandBack.class);

  private final Ledger ledger;
  private final Executor database;

  /**
   * @param ledger the ledger of the store the engine took its segments from (a region's, so the
   *     runs' IDs are turned into local values as the segments were turned into IDs)
   * @param database where the writes run (the bounded database-call executor)
   */
  public HandBack(Ledger ledger, Executor database) {
    this.ledger = ledger;
    this.database = database;
  }

  /** Hands {@code runs} back, waiting at most {@code budget}; logs and returns what it did. */
  public Result run(List<UnissuedRun> runs, Duration budget) {
    if (runs.isEmpty()) {
      return new Result(0, 0, 0, 0, 0);
    }
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger returned = new AtomicInteger();
    AtomicLong ids = new AtomicLong();
    AtomicInteger refused = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    CompletableFuture<Void> done = new CompletableFuture<>();
    try {
      database.execute(
          () -> {
            try {
              for (UnissuedRun run : runs) {
                if (stop.get()) {
                  return;
                }
                handBack(run, returned, ids, refused, failed);
              }
            } finally {
              done.complete(null);
            }
          });
      done.get(budget.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      stop.set(true);
    } catch (InterruptedException e) {
      stop.set(true);
      Thread.currentThread().interrupt();
    } catch (ExecutionException | RuntimeException e) {
      stop.set(true);
      log.warn("the hand-back could not run: {}", e.toString());
    }
    Result r =
        new Result(
            returned.get(),
            ids.get(),
            refused.get(),
            failed.get(),
            runs.size() - returned.get() - refused.get() - failed.get());
    log.info(
        "handed back {} unissued IDs of {} tags; {} tags not ({} taken on since, {} failed,"
            + " {} out of time: gaps)",
        r.ids(),
        r.returned(),
        runs.size() - r.returned(),
        r.refused(),
        r.failed(),
        r.unfinished());
    return r;
  }

  private void handBack(
      UnissuedRun run,
      AtomicInteger returned,
      AtomicLong ids,
      AtomicInteger refused,
      AtomicInteger failed) {
    try {
      if (ledger.handBack(run.bizTag(), run.first(), run.end())) {
        ids.addAndGet(run.ids());
        returned.incrementAndGet();
      } else {
        refused.incrementAndGet();
      }
    } catch (RuntimeException e) {
      failed.incrementAndGet();
      log.debug(
          "could not hand back [{}, {}) of biz_tag {}: {}",
          run.first(),
          run.end(),
          run.bizTag(),
          e.getMessage());
    }
  }
}
