package io.leaf.server.formats;

import io.leaf.server.formats.IdPattern.SequenceField;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One tag's formatted numbers: {@link #render} turns a sequence taken from the row of {@link
 * #periodOf(Instant) periodOf(at)} into the value for instant {@code at}, never longer than the
 * format and never wrapped, and {@link #parse} reads a value back to its period and sequence.
 *
 * <p>Use: {@code Period p = ids.periodOf(now); long seq = <next number of row (tag, p.key())>;
 * String v = ids.render(seq, now);} — the same {@code now} both times, so a value always shows the
 * date of the period its number came from. The clock is the caller's; this class reads none.
 *
 * <p>Thread-safe. A render costs a few comparisons and writing the sequence and check while {@code
 * at} stays in one day; the first call of a day in the tag's zone also converts the date and writes
 * it into the pattern ({@link DatedPattern}); an opaque sequence adds one FF1 encryption ({@link
 * Ff1Cipher}, microseconds).
 */
public final class FormattedIds {

  private final String tag;
  private final FormatSpec spec;
  private final SequenceField field;
  private final Ff1Cipher cipher;

  /** The day last rendered; racing threads may each build one, and any of them is right. */
  private volatile Day day;

  private FormattedIds(String tag, FormatSpec spec, Ff1Cipher cipher) {
    this.tag = tag;
    this.spec = spec;
    this.field = spec.pattern().sequence();
    this.cipher = cipher;
  }

  /**
   * The numbers of {@code tag} in {@code spec}.
   *
   * @param serverKey the server's {@code --format-key-file} key, if it has one
   * @param storedFingerprint the key fingerprint stored with an opaque format; ignored for a plain
   *     one
   * @throws FormatKeyMismatchException the format is opaque and the server has no key, or a key
   *     whose fingerprint differs from the stored one
   */
  public static FormattedIds of(
      String tag, FormatSpec spec, Optional<FormatKey> serverKey, String storedFingerprint) {
    Objects.requireNonNull(tag, "tag");
    if (!spec.opaque()) {
      return new FormattedIds(tag, spec, null);
    }
    FormatKey key =
        serverKey.orElseThrow(
            () ->
                new FormatKeyMismatchException(
                    "tag "
                        + Text.quote(tag)
                        + " has an opaque format (key fingerprint "
                        + storedFingerprint
                        + ") and this server has no --format-key-file"));
    if (!key.fingerprint().equals(storedFingerprint)) {
      throw new FormatKeyMismatchException(
          "tag "
              + Text.quote(tag)
              + " was formatted with the"
              + " key of fingerprint "
              + storedFingerprint
              + ", this server's --format-key-file has "
              + key.fingerprint()
              + "; two keys on one tag could repeat numbers");
    }
    return new FormattedIds(tag, spec, new Ff1Cipher(key, spec.pattern().sequence().width()));
  }

  /**
   * The fingerprint to store with {@code spec} when it is set on a tag: the server key's for an
   * opaque format, {@code ""} for a plain one.
   *
   * @throws FormatKeyMismatchException the format is opaque and the server has no key
   */
  public static String fingerprintToStore(FormatSpec spec, Optional<FormatKey> serverKey) {
    if (!spec.opaque()) {
      return "";
    }
    return serverKey
        .map(FormatKey::fingerprint)
        .orElseThrow(
            () ->
                new FormatKeyMismatchException(
                    "an opaque format needs the server's --format-key-file, and none is set"));
  }

  /**
   * The largest dynamic step a formatted tag of {@code width} digits should use: 1% of its 10^W
   * numbers, at least 1. The dynamic step of a formatted tag stays a small share of its width: a
   * restart or an eviction discards at most the current and the prefetched segment, 2% of a
   * period's numbers, so they cannot eat a day's numbers. The engine's own step limit still applies
   * above this.
   */
  public static long maxStep(int width) {
    if (width < 1 || width > IdPattern.MAX_WIDTH) {
      throw new IllegalArgumentException(
          "width must be between 1 and " + IdPattern.MAX_WIDTH + ", got " + width);
    }
    return Math.max(1, IdPattern.POW10[width] / 100);
  }

  public String tag() {
    return tag;
  }

  public FormatSpec spec() {
    return spec;
  }

  /** {@link #maxStep(int)} of this format's width: 1% of the field's numbers, at least 1. */
  public long maxStep() {
    return Math.max(1, (field.maxSequence() + 1) / 100);
  }

  /** The largest sequence a value can show: 10^W - 1; the row's numbers past it are refused. */
  public long maxSequence() {
    return field.maxSequence();
  }

  /** The period holding {@code at} in the format's zone; its key names the row to take from. */
  public Period periodOf(Instant at) {
    return dayOf(at).period;
  }

  /**
   * The value of {@code sequence}, taken from the row of {@code periodOf(at)}, at {@code at}.
   *
   * @throws WidthExhaustedException {@code sequence} needs more digits than the width
   * @throws IllegalArgumentException {@code sequence} is negative
   */
  public String render(long sequence, Instant at) {
    return render(sequence, dayOf(at));
  }

  /**
   * {@link #render(long, Instant)} for a caller that kept the period it took the sequence from: the
   * same value, after checking that {@code period} is {@code periodOf(at)}.
   *
   * @throws IllegalArgumentException {@code at} is outside {@code period}, or the period is of
   *     another reset or zone: the value would show a date its row does not own
   */
  public String render(long sequence, Period period, Instant at) {
    Day d = dayOf(at);
    if (!d.period.equals(period)) {
      throw new IllegalArgumentException(
          "tag "
              + Text.quote(tag)
              + ": instant "
              + at
              + " belongs to period "
              + d.period.key()
              + " ("
              + spec.reset()
              + ", "
              + spec.zone()
              + "), not to the given period "
              + period.key()
              + " ("
              + period.reset()
              + ", "
              + period.zone()
              + ")");
    }
    return render(sequence, d);
  }

  private String render(long sequence, Day d) {
    if (sequence < 0) {
      throw new IllegalArgumentException("sequence must not be negative, got " + sequence);
    }
    if (sequence > field.maxSequence()) {
      throw new WidthExhaustedException(tag, d.period.key(), field.width(), sequence);
    }
    long shown = cipher == null ? sequence : cipher.encrypt(sequence, d.tweak);
    return d.dated != null ? d.dated.render(shown) : spec.pattern().render(d.date, shown);
  }

  /**
   * The period, sequence and check validity of {@code value}.
   *
   * @param revealOpaque whether to decrypt an opaque sequence (an admin's right); a plain sequence
   *     is always returned, it is in the value
   * @throws ValueMismatchException the value does not have this format's shape
   */
  public ParsedId parse(String value, boolean revealOpaque) {
    ShownFields f = spec.pattern().match(tag, value);
    StringBuilder key = new StringBuilder(8);
    if (spec.reset() != Reset.NEVER) {
      IdPattern.appendPadded(key, f.year(), 4);
    }
    if (spec.reset() == Reset.MONTHLY || spec.reset() == Reset.DAILY) {
      IdPattern.appendPadded(key, f.month(), 2);
    }
    if (spec.reset() == Reset.DAILY) {
      IdPattern.appendPadded(key, f.day(), 2);
    }
    String periodKey = key.toString();
    OptionalLong sequence;
    if (cipher == null) {
      sequence = OptionalLong.of(f.shownSequence());
    } else if (revealOpaque) {
      sequence =
          OptionalLong.of(cipher.decrypt(f.shownSequence(), Ff1Cipher.tweak(tag, periodKey)));
    } else {
      sequence = OptionalLong.empty();
    }
    return new ParsedId(periodKey, sequence, f.checkValid());
  }

  private Day dayOf(Instant at) {
    Day d = day;
    if (d != null && !at.isBefore(d.start) && at.isBefore(d.end)) {
      return d;
    }
    d = new Day(at);
    day = d;
    return d;
  }

  /**
   * The day of the zone holding an instant, with its period: periods are whole days, so a day lies
   * in one period and the cached date, period, tweak and dated pattern hold for every instant of
   * it.
   */
  private final class Day {
    final LocalDate date;
    final Instant start;
    final Instant end;
    final Period period;
    final byte[] tweak;

    /** The pattern with this day's date written in; null when its year does not fit. */
    final DatedPattern dated;

    Day(Instant at) {
      date = at.atZone(spec.zone()).toLocalDate();
      start = date.atStartOfDay(spec.zone()).toInstant();
      end = date.plusDays(1).atStartOfDay(spec.zone()).toInstant();
      period = spec.reset().periodOf(at, spec.zone());
      tweak = Ff1Cipher.tweak(tag, period.key());
      dated = DatedPattern.of(spec.pattern(), date);
    }
  }

  @Override
  public String toString() {
    return "FormattedIds[tag="
        + Text.quote(tag)
        + ", pattern="
        + Text.quote(spec.pattern().source())
        + ", reset="
        + spec.reset()
        + ", zone="
        + spec.zone()
        + "]";
  }
}
