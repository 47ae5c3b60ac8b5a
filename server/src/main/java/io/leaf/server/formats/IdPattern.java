package io.leaf.server.formats;

import java.time.LocalDate;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A parsed format pattern: literals, date fields, exactly one fixed-width sequence field and at
 * most one check field, each at a fixed position, so every value of a pattern has the same length
 * and {@link #render} and {@link #match} are exact inverses.
 *
 * <p>Syntax ({@link #parse}): {@code {yyyy}}, {@code {yy}}, {@code {MM}}, {@code {dd}} and runs of
 * them such as {@code {yyyyMMdd}} or {@code {yyMM}} are the date, zero-padded; {@code {seq:W}} is
 * the sequence zero-padded to exactly W digits (1-18), {@code {seq:W:opaque}} the same through FF1
 * (W at least 6, the NIST SP 800-38G domain minimum of 10^6), {@code {seq:W:base36}} and {@code
 * {seq:W:base62}} the sequence in exactly W characters of {@code 0-9A-Z} (W up to 12) or {@code
 * 0-9A-Za-z} (W up to 10) ({@link SequenceDigits}); {@code {check:NAME}} is the check of every
 * digit before it in the value ({@link CheckCharacters}), and must follow the sequence; <code>{{
 * </code> and <code>}}</code> are literal braces; every other character is literal (control
 * characters refused). At most {@value #MAX_LENGTH} characters. Example: {@code
 * ORD-{yyyyMMdd}-{seq:6}{check:luhn}} renders day 2026-11-26, sequence 457 as {@code
 * ORD-20261126-0004577}.
 *
 * <p>Immutable and thread-safe. Rendering and matching cost O(value length).
 */
public final class IdPattern {

  /** The longest pattern accepted, in characters. */
  public static final int MAX_LENGTH = 256;

  /** The widest sequence field: 10^18 - 1 still fits a {@code long}. */
  public static final int MAX_WIDTH = 18;

  /** The narrowest opaque sequence field: FF1's domain must hold at least 10^6 values. */
  public static final int MIN_OPAQUE_WIDTH = 6;

  /** One piece of a pattern, in order. */
  public sealed interface Part permits Literal, DateField, SequenceField, CheckField {
    /** How many characters this part takes in a value. */
    int length();
  }

  /** Literal text, braces already unescaped. */
  public record Literal(String text) implements Part {
    @Override
    public int length() {
      return text.length();
    }
  }

  /** A date field of the tag's time zone, zero-padded. */
  public record DateField(DateUnit unit) implements Part {
    @Override
    public int length() {
      return unit.letters().length();
    }
  }

  /**
   * The sequence, zero-padded to exactly {@code width} digits of {@code radix} (10, 36 or 62);
   * FF1-encrypted when opaque (decimal only).
   */
  public record SequenceField(int width, boolean opaque, int radix) implements Part {
    /** A decimal field. */
    public SequenceField(int width, boolean opaque) {
      this(width, opaque, SequenceDigits.DECIMAL);
    }

    @Override
    public int length() {
      return width;
    }

    /** The largest sequence the field can show: radix^width - 1. */
    public long maxSequence() {
      return SequenceDigits.maxSequence(radix, width);
    }
  }

  /** The check characters over every digit before this field. */
  public record CheckField(CheckCharacters scheme) implements Part {
    @Override
    public int length() {
      return scheme.length();
    }
  }

  /** The date fields a pattern may show. */
  public enum DateUnit {
    /** The year, 4 digits (0000-9999). */
    YEAR("yyyy"),
    /** The year of the century, 2 digits: repeats every 100 years, so no reset counts on it. */
    YEAR_OF_CENTURY("yy"),
    MONTH("MM"),
    DAY("dd");

    private final String letters;

    DateUnit(String letters) {
      this.letters = letters;
    }

    /** How the unit is written in a pattern, e.g. {@code yyyy}. */
    public String letters() {
      return letters;
    }

    int of(LocalDate date) {
      switch (this) {
        case YEAR:
          return date.getYear();
        case YEAR_OF_CENTURY:
          return Math.floorMod(date.getYear(), 100);
        case MONTH:
          return date.getMonthValue();
        default:
          return date.getDayOfMonth();
      }
    }
  }

  static final long[] POW10 = new long[MAX_WIDTH + 1];

  static {
    POW10[0] = 1;
    for (int i = 1; i <= MAX_WIDTH; i++) {
      POW10[i] = POW10[i - 1] * 10;
    }
  }

  private final String source;
  private final List<Part> parts;
  private final SequenceField sequence;
  private final CheckField check;
  private final Set<DateUnit> dateUnits;
  private final int length;

  IdPattern(String source, List<Part> parts) {
    this.source = source;
    this.parts = List.copyOf(parts);
    SequenceField seq = null;
    CheckField chk = null;
    Set<DateUnit> units = EnumSet.noneOf(DateUnit.class);
    int len = 0;
    for (Part p : this.parts) {
      len += p.length();
      if (p instanceof SequenceField s) {
        seq = s;
      } else if (p instanceof CheckField c) {
        chk = c;
      } else if (p instanceof DateField d) {
        units.add(d.unit());
      }
    }
    this.sequence = seq;
    this.check = chk;
    this.dateUnits = units;
    this.length = len;
  }

  /**
   * Parses {@code pattern}.
   *
   * @throws InvalidFormatException the pattern breaks the syntax; the message names the pattern,
   *     the problem and the position
   */
  public static IdPattern parse(String pattern) {
    return new PatternParser(pattern).parse();
  }

  /** The pattern as written. */
  public String source() {
    return source;
  }

  public List<Part> parts() {
    return parts;
  }

  public SequenceField sequence() {
    return sequence;
  }

  public Optional<CheckCharacters> check() {
    return check == null ? Optional.empty() : Optional.of(check.scheme());
  }

  /** Whether the pattern shows {@code unit}. */
  public boolean shows(DateUnit unit) {
    return dateUnits.contains(unit);
  }

  /** Whether the pattern shows any date field. */
  public boolean showsDate() {
    return !dateUnits.isEmpty();
  }

  /** The length in characters of every value of this pattern. */
  public int valueLength() {
    return length;
  }

  /**
   * The value showing {@code date} and {@code shownSequence} (already encrypted when the field is
   * opaque), with its check computed.
   *
   * @throws IllegalArgumentException the sequence is negative or wider than the field, or the year
   *     does not fit {@code yyyy}
   */
  public String render(LocalDate date, long shownSequence) {
    checkShown(shownSequence);
    StringBuilder b = new StringBuilder(length);
    for (Part p : parts) {
      if (p instanceof DateField d) {
        appendDate(b, d, date);
      } else {
        appendPart(b, p, shownSequence);
      }
    }
    return b.toString();
  }

  /**
   * @throws IllegalArgumentException the sequence is negative or wider than the field
   */
  void checkShown(long shownSequence) {
    if (shownSequence < 0 || shownSequence > sequence.maxSequence()) {
      throw new IllegalArgumentException(
          "sequence must be between 0 and "
              + sequence.maxSequence()
              + " for "
              + sequence.width()
              + " "
              + SequenceDigits.name(sequence.radix())
              + ", got "
              + shownSequence);
    }
  }

  /** Whether {@code d} can show {@code date} (a year past {@code yyyy} cannot). */
  static boolean fits(DateField d, LocalDate date) {
    int v = d.unit().of(date);
    return v >= 0 && v < POW10[d.length()];
  }

  /**
   * @throws IllegalArgumentException the field cannot show the date's year
   */
  static void appendDate(StringBuilder b, DateField d, LocalDate date) {
    if (!fits(d, date)) {
      throw new IllegalArgumentException(
          "year " + date.getYear() + " does not fit {" + d.unit().letters() + "}");
    }
    appendPadded(b, d.unit().of(date), d.length());
  }

  /** Appends a literal, the sequence, or the check over every digit appended before it. */
  static void appendPart(StringBuilder b, Part p, long shownSequence) {
    if (p instanceof Literal l) {
      b.append(l.text());
    } else if (p instanceof SequenceField s) {
      SequenceDigits.append(b, shownSequence, s.width(), s.radix());
    } else {
      b.append(((CheckField) p).scheme().compute(digitsOf(b, b.length())));
    }
  }

  /**
   * The fields {@code value} shows, read by position; the check is recomputed, not trusted.
   *
   * @throws ValueMismatchException the value's length, a literal, a digit field or a date is wrong
   */
  public ShownFields match(String tag, String value) {
    return new ValueReader(this, tag, value).read();
  }

  /**
   * {@code v} in decimal, zero-padded on the left to {@code width} characters (longer when it has
   * more digits). Writes the digits in place, without a string per number.
   */
  static void appendPadded(StringBuilder b, long v, int width) {
    if (v < 0 || width < 1 || width > MAX_WIDTH || v >= POW10[width]) {
      String digits = Long.toString(v);
      for (int i = digits.length(); i < width; i++) {
        b.append('0');
      }
      b.append(digits);
      return;
    }
    int end = b.length() + width;
    for (int i = 0; i < width; i++) {
      b.append('0');
    }
    for (int i = end - 1; v > 0; i--) {
      b.setCharAt(i, (char) ('0' + v % 10));
      v /= 10;
    }
  }

  /** The ASCII digits among the first {@code end} characters of {@code s}. */
  static String digitsOf(CharSequence s, int end) {
    StringBuilder d = new StringBuilder(end);
    for (int i = 0; i < end; i++) {
      char c = s.charAt(i);
      if (c >= '0' && c <= '9') {
        d.append(c);
      }
    }
    return d.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IdPattern other && parts.equals(other.parts);
  }

  @Override
  public int hashCode() {
    return parts.hashCode();
  }

  @Override
  public String toString() {
    return source;
  }
}
