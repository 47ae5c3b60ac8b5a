package io.leaf.server.formats;

import io.leaf.server.formats.IdPattern.CheckField;
import io.leaf.server.formats.IdPattern.DateField;
import io.leaf.server.formats.IdPattern.Literal;
import io.leaf.server.formats.IdPattern.Part;
import io.leaf.server.formats.IdPattern.SequenceField;
import java.time.Month;
import java.time.Year;

/** Reads one value against a pattern by position; single use, not thread-safe. */
final class ValueReader {

  private final IdPattern pattern;
  private final String tag;
  private final String value;

  ValueReader(IdPattern pattern, String tag, String value) {
    this.pattern = pattern;
    this.tag = tag;
    this.value = value;
  }

  ShownFields read() {
    if (value.length() != pattern.valueLength()) {
      throw mismatch(
          "it has "
              + value.length()
              + " characters, the format's values have "
              + pattern.valueLength());
    }
    int year = -1;
    int yearOfCentury = -1;
    int month = -1;
    int day = -1;
    long shown = -1;
    boolean checkValid = true;
    int pos = 0;
    for (Part p : pattern.parts()) {
      if (p instanceof Literal l) {
        if (!value.startsWith(l.text(), pos)) {
          throw mismatch("expected " + Text.quote(l.text()) + " at position " + pos);
        }
      } else if (p instanceof DateField d) {
        int v = (int) digits(pos, d.length(), d.unit().letters());
        switch (d.unit()) {
          case YEAR -> year = v;
          case YEAR_OF_CENTURY -> yearOfCentury = v;
          case MONTH -> month = v;
          case DAY -> day = v;
          default -> throw new IllegalStateException("unknown date unit " + d.unit());
        }
      } else if (p instanceof SequenceField s) {
        shown =
            s.radix() == SequenceDigits.DECIMAL
                ? digits(pos, s.width(), "the sequence")
                : radixDigits(pos, s);
      } else {
        CheckCharacters scheme = ((CheckField) p).scheme();
        digits(pos, scheme.length(), "the " + scheme.patternName() + " check");
        checkValid =
            scheme.verify(
                IdPattern.digitsOf(value, pos), value.substring(pos, pos + scheme.length()));
      }
      pos += p.length();
    }
    checkDate(year, month, day);
    return new ShownFields(year, yearOfCentury, month, day, shown, checkValid);
  }

  private long digits(int pos, int count, String what) {
    long v = 0;
    for (int i = pos; i < pos + count; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        throw mismatch(
            "expected "
                + count
                + " digits ("
                + what
                + ") at position "
                + pos
                + ", found "
                + Text.quote(String.valueOf(c))
                + " at position "
                + i);
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  private long radixDigits(int pos, SequenceField s) {
    long v = 0;
    for (int i = pos; i < pos + s.width(); i++) {
      int d = SequenceDigits.valueOf(value.charAt(i), s.radix());
      if (d < 0) {
        throw mismatch(
            "expected "
                + s.width()
                + " "
                + SequenceDigits.name(s.radix())
                + " (the sequence) at position "
                + pos
                + ", found "
                + Text.quote(String.valueOf(value.charAt(i)))
                + " at position "
                + i);
      }
      v = v * s.radix() + d;
    }
    return v;
  }

  private void checkDate(int year, int month, int day) {
    if (month != -1 && (month < 1 || month > 12)) {
      throw mismatch("month " + month + " is not a month");
    }
    if (day == -1) {
      return;
    }
    // Without the month any day 1-31 may be real; without the year, February may have 29 days.
    int maxDay = month == -1 ? 31 : Month.of(month).length(year == -1 || Year.isLeap(year));
    if (day < 1 || day > maxDay) {
      throw mismatch(
          "day "
              + day
              + " is not a day"
              + (month == -1 ? "" : " of month " + month + (year == -1 ? "" : " in " + year)));
    }
  }

  private ValueMismatchException mismatch(String problem) {
    return new ValueMismatchException(tag, pattern.source(), value, problem);
  }
}
