package io.leaf.server.formats;

import io.leaf.server.formats.IdPattern.DateField;
import io.leaf.server.formats.IdPattern.Literal;
import io.leaf.server.formats.IdPattern.Part;
import io.leaf.server.formats.IdPattern.SequenceField;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link IdPattern} with one date written in: {@link #render} returns exactly what {@code
 * pattern.render(date, shownSequence)} returns. Immutable and thread-safe.
 *
 * <p>It writes only the sequence and the check per value, because every value of a day shows the
 * same date (in a stream of a million values, writing the date each time was most of the work).
 */
final class DatedPattern {

  private final IdPattern pattern;

  /** Every part before the sequence, written. */
  private final String head;

  private final int width;

  /** The parts after the sequence: literals (dates written in) and the check. */
  private final List<Part> tail;

  private DatedPattern(IdPattern pattern, String head, List<Part> tail) {
    this.pattern = pattern;
    this.head = head;
    this.width = pattern.sequence().width();
    this.tail = List.copyOf(tail);
  }

  /**
   * {@code pattern} on {@code date}; null when a date field cannot show the date (a year past
   * {@code yyyy}), so that {@link IdPattern#render} reports it as it always has.
   */
  static DatedPattern of(IdPattern pattern, LocalDate date) {
    StringBuilder head = new StringBuilder(pattern.valueLength());
    List<Part> tail = new ArrayList<>();
    StringBuilder literal = null;
    for (Part p : pattern.parts()) {
      if (p instanceof DateField d && !IdPattern.fits(d, date)) {
        return null;
      }
      if (literal == null) {
        if (p instanceof SequenceField) {
          literal = new StringBuilder();
        } else if (p instanceof DateField d) {
          IdPattern.appendDate(head, d, date);
        } else {
          // Before the sequence there are only literals and dates: the check must follow it.
          IdPattern.appendPart(head, p, 0);
        }
      } else if (p instanceof Literal l) {
        literal.append(l.text());
      } else if (p instanceof DateField d) {
        IdPattern.appendDate(literal, d, date);
      } else {
        flush(literal, tail);
        tail.add(p);
      }
    }
    flush(literal, tail);
    return new DatedPattern(pattern, head.toString(), tail);
  }

  private static void flush(StringBuilder literal, List<Part> tail) {
    if (literal.length() > 0) {
      tail.add(new Literal(literal.toString()));
      literal.setLength(0);
    }
  }

  /**
   * The value showing this date and {@code shownSequence}, as {@link IdPattern#render}.
   *
   * @throws IllegalArgumentException the sequence is negative or wider than the field
   */
  String render(long shownSequence) {
    pattern.checkShown(shownSequence);
    StringBuilder b = new StringBuilder(pattern.valueLength());
    b.append(head);
    SequenceDigits.append(b, shownSequence, width, pattern.sequence().radix());
    for (Part p : tail) {
      IdPattern.appendPart(b, p, shownSequence);
    }
    return b.toString();
  }
}
