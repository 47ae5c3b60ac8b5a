package io.leaf.server.formats;

import io.leaf.server.formats.IdPattern.CheckField;
import io.leaf.server.formats.IdPattern.DateField;
import io.leaf.server.formats.IdPattern.DateUnit;
import io.leaf.server.formats.IdPattern.Literal;
import io.leaf.server.formats.IdPattern.Part;
import io.leaf.server.formats.IdPattern.SequenceField;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** Parses one pattern into an {@link IdPattern}; single use, not thread-safe. */
final class PatternParser {

  private static final String FIELDS =
      "expected date letters (yyyy, yy, MM, dd), seq:W,"
          + " seq:W:opaque, seq:W:base36, seq:W:base62 or check:NAME";

  private final String pattern;
  private final List<Part> parts = new ArrayList<>();
  private final StringBuilder literal = new StringBuilder();
  private final Set<DateUnit> units = EnumSet.noneOf(DateUnit.class);
  private boolean sequenceSeen;
  private boolean checkSeen;
  private int sequenceRadix = SequenceDigits.DECIMAL;

  PatternParser(String pattern) {
    this.pattern = pattern;
  }

  IdPattern parse() {
    if (pattern == null || pattern.isEmpty()) {
      throw error(-1, "a pattern must not be empty; it needs a {seq:W} field");
    }
    if (pattern.length() > IdPattern.MAX_LENGTH) {
      throw error(
          -1,
          "a pattern has at most " + IdPattern.MAX_LENGTH + " characters, got " + pattern.length());
    }
    int i = 0;
    while (i < pattern.length()) {
      char c = pattern.charAt(i);
      if (c == '{' && i + 1 < pattern.length() && pattern.charAt(i + 1) == '{') {
        literal.append('{');
        i += 2;
      } else if (c == '}' && i + 1 < pattern.length() && pattern.charAt(i + 1) == '}') {
        literal.append('}');
        i += 2;
      } else if (c == '}') {
        throw error(i, "a lone '}' (write '}}' for a literal brace)");
      } else if (c == '{') {
        int close = pattern.indexOf('}', i + 1);
        if (close < 0) {
          throw error(i, "'{' is never closed (write '{{' for a literal brace)");
        }
        flushLiteral();
        field(pattern.substring(i + 1, close), i);
        i = close + 1;
      } else if (Character.isISOControl(c)) {
        throw error(i, String.format("control character U+%04X is not allowed", (int) c));
      } else {
        literal.append(c);
        i++;
      }
    }
    flushLiteral();
    if (!sequenceSeen) {
      throw error(-1, "a pattern needs exactly one {seq:W} field, found none");
    }
    return new IdPattern(pattern, parts);
  }

  private void flushLiteral() {
    if (literal.length() > 0) {
      parts.add(new Literal(literal.toString()));
      literal.setLength(0);
    }
  }

  private void field(String body, int at) {
    if (body.startsWith("seq:") || body.equals("seq")) {
      sequence(body, at);
    } else if (body.startsWith("check:") || body.equals("check")) {
      check(body, at);
    } else if (!body.isEmpty()
        && body.chars().allMatch(ch -> ch == 'y' || ch == 'M' || ch == 'd')) {
      date(body, at);
    } else {
      throw error(at, "unknown field {" + body + "}: " + FIELDS);
    }
  }

  private void date(String body, int at) {
    int i = 0;
    while (i < body.length()) {
      char letter = body.charAt(i);
      int end = i;
      while (end < body.length() && body.charAt(end) == letter) {
        end++;
      }
      String run = body.substring(i, end);
      DateUnit unit =
          switch (run) {
            case "yyyy" -> DateUnit.YEAR;
            case "yy" -> DateUnit.YEAR_OF_CENTURY;
            case "MM" -> DateUnit.MONTH;
            case "dd" -> DateUnit.DAY;
            default ->
                throw error(
                    at + 1 + i,
                    "date letters '"
                        + run
                        + "': write yyyy or yy for the"
                        + " year, MM for the month, dd for the day");
          };
      boolean yearTwice =
          (unit == DateUnit.YEAR && units.contains(DateUnit.YEAR_OF_CENTURY))
              || (unit == DateUnit.YEAR_OF_CENTURY && units.contains(DateUnit.YEAR));
      if (!units.add(unit) || yearTwice) {
        throw error(
            at + 1 + i,
            "the "
                + (unit == DateUnit.MONTH ? "month" : unit == DateUnit.DAY ? "day" : "year")
                + " is shown twice");
      }
      parts.add(new DateField(unit));
      i = end;
    }
  }

  private void sequence(String body, int at) {
    if (sequenceSeen) {
      throw error(at, "a second {seq} field; a pattern has exactly one");
    }
    String[] pieces = body.split(":", -1);
    String kind = pieces.length == 3 ? pieces[2] : "";
    int radix =
        switch (kind) {
          case "", "opaque" -> SequenceDigits.DECIMAL;
          case "base36" -> SequenceDigits.BASE36;
          case "base62" -> SequenceDigits.BASE62;
          default -> -1;
        };
    if (pieces.length < 2 || pieces.length > 3 || radix < 0) {
      throw error(
          at,
          "sequence field {"
              + body
              + "}: write {seq:W}, {seq:W:opaque},"
              + " {seq:W:base36} or {seq:W:base62}");
    }
    String w = pieces[1];
    int width =
        w.length() >= 1 && w.length() <= 2 && CheckCharacters.allDigits(w)
            ? Integer.parseInt(w)
            : -1;
    int maxWidth = SequenceDigits.maxWidth(radix);
    if (width < 1 || width > maxWidth) {
      throw error(
          at,
          "sequence width must be 1 to "
              + maxWidth
              + " "
              + SequenceDigits.name(radix)
              + ", got "
              + Text.quote(w));
    }
    boolean opaque = kind.equals("opaque");
    if (opaque && width < IdPattern.MIN_OPAQUE_WIDTH) {
      throw error(
          at,
          "an opaque sequence needs a width of at least "
              + IdPattern.MIN_OPAQUE_WIDTH
              + " digits (FF1's smallest domain is 10^6), got "
              + width);
    }
    sequenceSeen = true;
    sequenceRadix = radix;
    parts.add(new SequenceField(width, opaque, radix));
  }

  private void check(String body, int at) {
    String name = body.length() > 6 ? body.substring(6) : "";
    CheckCharacters scheme =
        CheckCharacters.forPatternName(name)
            .orElseThrow(
                () ->
                    error(
                        at,
                        "unknown check " + Text.quote(name) + "; offered: luhn, verhoeff, mod97"));
    if (checkSeen) {
      throw error(at, "a second {check} field; a pattern has at most one");
    }
    if (!sequenceSeen) {
      throw error(at, "the check must follow the {seq} field it protects");
    }
    if (sequenceRadix != SequenceDigits.DECIMAL) {
      throw error(
          at,
          "a check covers decimal digits only; a {seq:W:base"
              + sequenceRadix
              + "} sequence has letters it would not protect");
    }
    checkSeen = true;
    parts.add(new CheckField(scheme));
  }

  private InvalidFormatException error(int position, String problem) {
    return new InvalidFormatException(pattern, position, problem);
  }
}
