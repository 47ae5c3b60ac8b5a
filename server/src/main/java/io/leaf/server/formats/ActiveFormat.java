package io.leaf.server.formats;

import java.time.Instant;
import java.util.Optional;

/**
 * A tag's current format as this server issues it: the stored version, its {@link FormattedIds} (or
 * why this server must refuse it), and the period it issues from now.
 *
 * <p>Thread-safe: the period slot is replaced whole, and its flags only ever turn on.
 */
final class ActiveFormat {

  /** One period's row as this server knows it. */
  static final class Slot {
    final Period period;
    final String row;

    /** The row exists and its step limit is set: the engine may serve it. */
    volatile boolean ready;

    /** A number of this period passed the width: every later one would too. */
    volatile boolean exhausted;

    /** The next period's row was asked for (once per slot). */
    volatile boolean nextPrepared;

    Slot(String tag, Period period) {
      this.period = period;
      this.row = PeriodRows.name(tag, period);
    }
  }

  final StoredFormat stored;
  final FormatSpec spec;

  /** Null when {@link #refusal} is set. */
  final FormattedIds ids;

  /** Why this server cannot issue this format (a missing or different key); null when it can. */
  final RuntimeException refusal;

  private volatile Slot slot;

  private ActiveFormat(
      StoredFormat stored, FormatSpec spec, FormattedIds ids, RuntimeException refusal) {
    this.stored = stored;
    this.spec = spec;
    this.ids = ids;
    this.refusal = refusal;
  }

  /**
   * The format of a stored row on a server holding {@code key}.
   *
   * @throws InvalidFormatException the stored row is not a valid format (edited by hand)
   */
  static ActiveFormat of(StoredFormat stored, Optional<FormatKey> key) {
    FormatSpec spec = stored.definition().spec();
    try {
      return new ActiveFormat(
          stored, spec, FormattedIds.of(stored.bizTag(), spec, key, stored.keyFingerprint()), null);
    } catch (FormatKeyMismatchException e) {
      return new ActiveFormat(stored, spec, null, e);
    }
  }

  String tag() {
    return stored.bizTag();
  }

  /** The slot of the period holding {@code at}: the cached one while {@code at} stays in it. */
  Slot slotAt(Instant at) {
    Slot s = slot;
    if (s != null && s.period.contains(at)) {
      return s;
    }
    Slot fresh = new Slot(tag(), ids.periodOf(at));
    if (s != null && s.period.equals(fresh.period)) {
      return s;
    }
    // Racing threads at a boundary (or a clock that moved back) may each set theirs; a slot
    // only caches, so losing one costs a row check, never a number.
    slot = fresh;
    return fresh;
  }

  /** The slot last used; null before the first number. */
  Slot currentSlot() {
    return slot;
  }
}
