package io.leaf.server.formats;

import io.leaf.server.engine.IdRanges;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.engine.WaitDeadline;
import io.leaf.server.formats.ActiveFormat.Slot;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.TagNotFoundException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Issues a tag's formatted numbers, each from the row of the period the wall clock's now falls in
 * and rendered with that same now. Uniqueness rests on the rows alone, never on the clock.
 *
 * <p>The format's period of now picks the row ({@code tag#key}), the engine takes the next number
 * of that row, and the value is rendered with that same now, so every value shows the date of the
 * period its number came from. Each number of a row is issued once, by the engine's usual
 * guarantees: a server whose clock is off issues from the row of the period it believes in, and its
 * values show that period.
 *
 * <p>Within {@link #PREPARE_AHEAD} of a period's end, the first call creates the next period's row
 * and loads its first segment, so the first numbers after the boundary need no database.
 *
 * <p>Never blocks: a tag whose format and row are known and whose row has numbers buffered is
 * answered inline (one engine take and a render); otherwise the answer comes from the database
 * executor or the engine's load. Thread-safe.
 */
public final class FormattedIssuer {

  /** How long before a period ends its successor's row is prepared. */
  public static final Duration PREPARE_AHEAD = Duration.ofMinutes(2);

  private final SegmentAllocator engine;
  private final TagFormats formats;
  private final PeriodRows rows;
  private final InstantSource clock;
  private final SegmentStore tags;
  private final SequenceRule sequences;

  /**
   * @param key the server's {@code --format-key-file} key, if any
   * @param clock the wall clock that picks each number's period and date
   * @param database where format reads and row creation run (bounded)
   */
  public FormattedIssuer(
      SegmentAllocator engine,
      SegmentStore tags,
      FormatStore formats,
      Optional<FormatKey> key,
      InstantSource clock,
      Executor database) {
    this(engine, tags, formats, key, database, new Numbering(clock, SequenceRule.IDENTITY));
  }

  /**
   * How numbers are picked: the wall clock that picks each number's period and date, and the rule
   * that turns a period row's IDs into the sequences shown (a region's rule).
   */
  public record Numbering(InstantSource clock, SequenceRule sequences) {}

  /**
   * @param numbering the clock and the sequence rule (a region's) numbers are picked by
   */
  public FormattedIssuer(
      SegmentAllocator engine,
      SegmentStore tags,
      FormatStore formats,
      Optional<FormatKey> key,
      Executor database,
      Numbering numbering) {
    this.sequences = numbering.sequences();
    this.engine = engine;
    this.tags = tags;
    this.formats = new TagFormats(formats, tags, database, engine.ticker(), key);
    this.rows = new PeriodRows(tags, database);
    this.clock = numbering.clock();
  }

  /** Forgets what this server read of the tag's format (it was just changed here). */
  public void formatChanged(String tag) {
    formats.invalidate(tag);
  }

  /**
   * The next formatted number of {@code tag} (a validated name). Cancelling the future drops the
   * call's wait for a segment at once.
   *
   * <p>Fails with {@link NoFormatException} (the tag has none), {@link TagNotFoundException} (there
   * is no such tag), {@link FormatKeyMismatchException}, {@link WidthExhaustedException}, {@link
   * PeriodBehindException}, or the engine's and store's failures.
   */
  public CompletableFuture<String> next(String tag, WaitDeadline deadline) {
    ActiveFormat f = formats.ready(tag);
    if (f != null && f.refusal == null) {
      Instant now = clock.instant();
      Slot s = f.slotAt(now);
      if (s.ready && !s.exhausted) {
        prepareNext(f, s, now);
        long seq = engine.tryNextId(s.row);
        if (seq != SegmentAllocator.NO_ID) {
          try {
            return CompletableFuture.completedFuture(render(f, s, sequences.sequence(seq), now));
          } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
          }
        }
      }
    }
    return withFormat(
        tag,
        s -> engine.nextId(s.row, deadline),
        (a, slot, seq, at) -> render(a, slot, sequences.sequence(seq), at));
  }

  /** {@code count} formatted numbers of {@code tag}, in order; fails as {@link #next} does. */
  public CompletableFuture<List<String>> next(String tag, int count, WaitDeadline deadline) {
    return withFormat(tag, s -> engine.nextIds(s.row, count, deadline), this::renderAll);
  }

  /**
   * The parts of {@code value}, a number of {@code tag}'s current format.
   *
   * @param revealOpaque whether the caller may see an opaque number's sequence (an admin)
   */
  public CompletableFuture<ParsedId> parse(String tag, String value, boolean revealOpaque) {
    return formats
        .get(tag)
        .thenApply(
            o -> {
              ActiveFormat f = o.orElseThrow(() -> new NoFormatException(tag));
              if (f.refusal != null) {
                throw f.refusal;
              }
              return f.ids.parse(value, revealOpaque);
            });
  }

  /** Turns what the engine gave for a slot into values. */
  private interface Render<R, T> {
    T apply(ActiveFormat f, Slot s, R taken, Instant now);
  }

  /** A format and its period row, ready to take from, and the instant that picked the period. */
  private record Taking(ActiveFormat f, Slot s, Instant now) {}

  /**
   * Loads the format and makes sure the period's row exists, then takes from the engine with {@code
   * take} and renders with {@code render}. Cancelling the result cancels the engine's wait (a
   * caller that left holds no wait slot); cancelled before the take, it takes nothing.
   */
  private <R, T> CompletableFuture<T> withFormat(
      String tag, Function<Slot, CompletableFuture<R>> take, Render<R, T> render) {
    if (!tags.mayHold(tag)) {
      return CompletableFuture.failedFuture(new TagNotFoundException(tag));
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    taking(tag)
        .whenComplete(
            (t, failure) -> {
              if (failure != null) {
                result.completeExceptionally(unwrap(failure));
                return;
              }
              if (result.isDone()) {
                return;
              }
              CompletableFuture<R> taken;
              try {
                taken = take.apply(t.s());
              } catch (RuntimeException e) {
                result.completeExceptionally(e);
                return;
              }
              result.whenComplete(
                  (v, e) -> {
                    if (result.isCancelled()) {
                      taken.cancel(false);
                    }
                  });
              taken.whenComplete(
                  (r, e) -> {
                    if (e != null) {
                      result.completeExceptionally(unwrap(e));
                      return;
                    }
                    try {
                      result.complete(render.apply(t.f(), t.s(), r, t.now()));
                    } catch (RuntimeException refused) {
                      result.completeExceptionally(refused);
                    }
                  });
            });
    return result;
  }

  /** The tag's format and the period row of now, once the engine may serve that row. */
  private CompletableFuture<Taking> taking(String tag) {
    return formats
        .get(tag)
        .thenCompose(
            o -> {
              ActiveFormat f = o.orElseThrow(() -> new NoFormatException(tag));
              if (f.refusal != null) {
                throw f.refusal;
              }
              Instant now = clock.instant();
              Slot s = f.slotAt(now);
              if (s.exhausted) {
                throw new WidthExhaustedException(
                    tag,
                    s.period.key(),
                    f.spec.pattern().sequence().width(),
                    f.ids.maxSequence() + 1);
              }
              Taking t = new Taking(f, s, now);
              if (s.ready) {
                // The engine keeps limits for its most recent tags only: set again (one cache read
                // when
                // it still holds it) so an evicted limit cannot let this row's step grow past its
                // width.
                engine.limitStep(s.row, maxStep(f));
                prepareNext(f, s, now);
                return CompletableFuture.completedFuture(t);
              }
              // The next period's row only after this one's: a row is never created before an
              // earlier
              // one that is still to come (PeriodRows refuses that order).
              return ready(f, s)
                  .thenApply(
                      v -> {
                        prepareNext(f, s, now);
                        return t;
                      });
            });
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }

  /**
   * Creates the slot's row if needed and limits its step; completes when the engine may serve it.
   */
  private CompletableFuture<Void> ready(ActiveFormat f, Slot s) {
    int maxStep = maxStep(f);
    return rows.ensure(f.tag(), s.period, maxStep)
        .thenRun(
            () -> {
              engine.limitStep(s.row, maxStep);
              s.ready = true;
            });
  }

  private static int maxStep(ActiveFormat f) {
    return (int) Math.min(Integer.MAX_VALUE, f.ids.maxStep());
  }

  /** Within {@link #PREPARE_AHEAD} of the slot's end: the next period's row and first segment. */
  private void prepareNext(ActiveFormat f, Slot s, Instant now) {
    if (s.nextPrepared || now.isBefore(s.period.end().minus(PREPARE_AHEAD))) {
      return;
    }
    s.nextPrepared = true;
    s.period
        .next()
        .ifPresent(
            next -> {
              Slot n = new Slot(f.tag(), next);
              ready(f, n)
                  .thenCompose(
                      v ->
                          engine.initCache(n.row, engine.deadline(PREPARE_AHEAD.toNanos(), false)));
              // A failure here only means the first call of the next period loads it itself.
            });
  }

  private static String render(ActiveFormat f, Slot s, long seq, Instant now) {
    try {
      return f.ids.render(seq, s.period, now);
    } catch (WidthExhaustedException e) {
      s.exhausted = true;
      throw e;
    }
  }

  /**
   * The values of {@code ids} up to the width: a batch that crosses it answers the numbers before
   * it (the next call is refused, as {@link Slot#exhausted} is set), and fails only when not one of
   * its numbers fits. The numbers past the width are a gap that no later call can use.
   */
  private List<String> renderAll(ActiveFormat f, Slot s, IdRanges ids, Instant now) {
    List<String> values = new ArrayList<>((int) ids.size());
    WidthExhaustedException[] past = new WidthExhaustedException[1];
    ids.forEach(
        id -> {
          if (past[0] == null) {
            try {
              values.add(render(f, s, sequences.sequence(id), now));
            } catch (WidthExhaustedException e) {
              past[0] = e;
            }
          }
        });
    if (values.isEmpty() && past[0] != null) {
      throw past[0];
    }
    return values;
  }

  /** For the monitor page and GetTag: the period a tag issues from now and numbers left in it. */
  public Optional<PeriodView> view(String tag) {
    ActiveFormat f = formats.ready(tag);
    Slot s = f == null ? null : f.currentSlot();
    if (s == null) {
      return Optional.empty();
    }
    long issuedUpTo = engine.snapshot(s.row).map(v -> v.current().cursor()).orElse(-1L);
    long left = issuedUpTo < 0 ? -1 : sequences.sequencesLeft(issuedUpTo, f.ids.maxSequence());
    return Optional.of(new PeriodView(f.stored.pattern(), s.period.key(), s.row, left));
  }

  /**
   * A formatted tag as this server issues it now.
   *
   * @param numbersLeft sequences left in the width past this server's cursor; -1 when unknown
   */
  public record PeriodView(String pattern, String period, String row, long numbersLeft) {}
}
