package io.leaf.server.formats;

import io.leaf.server.formats.IdPattern.Literal;
import io.leaf.server.formats.IdPattern.Part;
import io.leaf.server.formats.IdPattern.SequenceField;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Decides whether a tag that issued numbers under one format may switch to another: only when no
 * value of the new format can equal a value of the old one. Conservative: a change is safe in
 * exactly two cases, and refused in every other.
 *
 * <ol>
 *   <li><b>Disjoint values.</b> The two formats' values differ in length, or at some position both
 *       show a fixed character and the characters differ, or one shows a fixed non-digit where the
 *       other shows a digit field (every date, sequence and check character is a digit). A new
 *       prefix or suffix ({@code ORD-} to {@code SO-}, {@code ORD-} to {@code ORDER-}), a changed
 *       separator ({@code -} to {@code /}) or a different length are safe this way, whatever else
 *       changes with them.
 *   <li><b>Same numbering.</b> Same fields at the same positions, same literals, same reset, same
 *       key (for an opaque field), and the same time zone where dates or periods depend on it: the
 *       sequence continues in the same rows, so no number comes back.
 * </ol>
 *
 * Everything else — another width, opaque on or off, another key, reset, time zone, date fields or
 * check, or literals changed in a way a new value could still match — is refused. The test is
 * pairwise: a tag that has had several formats must check the new one against each of them (A to B
 * to A' is only safe if A' is safe against A too). Stateless.
 */
public final class FormatChanges {

  /** A fixed position that shows a digit field, not a literal; control characters never occur. */
  private static final char DIGIT_FIELD = '\0';

  /** A base-36 or base-62 sequence position: any ASCII letter or digit. */
  private static final char LETTER_OR_DIGIT_FIELD = '\1';

  private FormatChanges() {}

  /** Whether a change is safe, and why (or why not), in a sentence for the caller's message. */
  public record Verdict(boolean safe, String reason) {}

  /**
   * Whether a tag whose numbers were issued under {@code from} may issue under {@code to}.
   *
   * @param fromKeyFingerprint the fingerprint stored with {@code from} ({@code ""} when plain)
   * @param toKeyFingerprint the fingerprint {@code to} would be stored with
   */
  public static Verdict assess(
      FormatSpec from, String fromKeyFingerprint, FormatSpec to, String toKeyFingerprint) {
    String disjoint = disjointBecause(layout(from.pattern()), layout(to.pattern()));
    if (disjoint != null) {
      return new Verdict(true, "no new value can equal an old one: " + disjoint);
    }
    List<String> changes = new ArrayList<>();
    SequenceField a = from.pattern().sequence();
    SequenceField b = to.pattern().sequence();
    if (a.radix() != b.radix()) {
      changes.add("the sequence's radix changes from " + a.radix() + " to " + b.radix());
    }
    if (a.width() != b.width()) {
      changes.add("the sequence width changes from " + a.width() + " to " + b.width());
    }
    if (a.opaque() != b.opaque()) {
      changes.add(b.opaque() ? "the sequence becomes opaque" : "the sequence stops being opaque");
    } else if (a.opaque() && !Objects.equals(fromKeyFingerprint, toKeyFingerprint)) {
      changes.add(
          "the key changes from fingerprint " + fromKeyFingerprint + " to " + toKeyFingerprint);
    }
    if (from.reset() != to.reset()) {
      changes.add("the reset changes from " + from.reset() + " to " + to.reset());
    }
    if (zoneMatters(from) || zoneMatters(to)) {
      if (!from.zone().equals(to.zone())) {
        changes.add("the time zone changes from " + from.zone() + " to " + to.zone());
      }
    }
    if (changes.isEmpty() && !from.pattern().equals(to.pattern())) {
      changes.add("the fields or literals change while a new value could still equal an old one");
    }
    if (changes.isEmpty()) {
      return new Verdict(
          true, "the numbering is unchanged: the sequence continues in the same" + " rows");
    }
    return new Verdict(false, String.join("; ", changes));
  }

  private static boolean zoneMatters(FormatSpec spec) {
    return spec.reset() != Reset.NEVER || spec.pattern().showsDate();
  }

  /** Each character position of the pattern's values: its literal, or {@link #DIGIT_FIELD}. */
  private static char[] layout(IdPattern pattern) {
    char[] layout = new char[pattern.valueLength()];
    int pos = 0;
    for (Part p : pattern.parts()) {
      if (p instanceof Literal l) {
        l.text().getChars(0, l.length(), layout, pos);
      } else if (p instanceof SequenceField s && s.radix() != SequenceDigits.DECIMAL) {
        Arrays.fill(layout, pos, pos + p.length(), LETTER_OR_DIGIT_FIELD);
      } else {
        Arrays.fill(layout, pos, pos + p.length(), DIGIT_FIELD);
      }
      pos += p.length();
    }
    return layout;
  }

  private static String disjointBecause(char[] a, char[] b) {
    if (a.length != b.length) {
      return "old values have " + a.length + " characters, new ones " + b.length;
    }
    for (int i = 0; i < a.length; i++) {
      if (a[i] == b[i]
          || (a[i] == DIGIT_FIELD && isDigit(b[i]))
          || (b[i] == DIGIT_FIELD && isDigit(a[i]))
          || mayShow(a[i], b[i])
          || mayShow(b[i], a[i])) {
        continue;
      }
      return "at position " + i + " old values show " + shown(a[i]) + ", new ones " + shown(b[i]);
    }
    return null;
  }

  /** Whether a base-36/62 position {@code field} may show what {@code other} shows. */
  private static boolean mayShow(char field, char other) {
    return field == LETTER_OR_DIGIT_FIELD
        && (other == DIGIT_FIELD
            || other == LETTER_OR_DIGIT_FIELD
            || SequenceDigits.valueOf(other, 62) >= 0);
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static String shown(char c) {
    return c == DIGIT_FIELD
        ? "a digit"
        : c == LETTER_OR_DIGIT_FIELD ? "a letter or digit" : Text.quote(String.valueOf(c));
  }
}
