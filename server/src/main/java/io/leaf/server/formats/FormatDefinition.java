package io.leaf.server.formats;

/**
 * A format as written to the {@code leaf_format} table: its pattern, reset and time zone as text,
 * unparsed. {@link #spec} parses it; a row edited by hand may not parse.
 *
 * @param pattern the pattern's source text, such as {@code INV-{yyyyMMdd}-{seq:6}}
 * @param reset NEVER, DAILY, MONTHLY or YEARLY
 * @param timeZone an IANA name or an offset, as given when set ({@code UTC} by default)
 */
public record FormatDefinition(String pattern, String reset, String timeZone) {

  /** The text a parsed {@code spec} is stored as. */
  static FormatDefinition of(FormatSpec spec) {
    return new FormatDefinition(spec.pattern().source(), spec.reset().name(), spec.zone().getId());
  }

  /**
   * This format, parsed.
   *
   * @throws InvalidFormatException the stored text is not a valid format (edited by hand)
   */
  FormatSpec spec() {
    return FormatSpec.of(pattern, Reset.valueOf(reset), timeZone);
  }
}
