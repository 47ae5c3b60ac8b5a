package io.leaf.server.config;

import java.util.Locale;

/**
 * One command-line flag: its name, the environment variable read when the flag is absent, the
 * default used when both are, a line of help, and the parser that turns the text into a value.
 *
 * @param name the flag without its dashes ({@code max-wait})
 * @param env the environment variable ({@code LEAF_MAX_WAIT})
 * @param defaultValue the default as {@code --help} shows it and the parser reads it; empty: none
 * @param help one line for {@code --help}
 * @param parser reads the value; its refusal names the flag
 */
public record Flag<T>(String name, String env, String defaultValue, String help, Parser<T> parser) {

  /** Reads a flag's text; refuses it with one line that starts with {@code --name}. */
  @FunctionalInterface
  public interface Parser<T> {
    /**
     * @throws IllegalArgumentException the text is no valid value of the flag
     */
    T parse(String flag, String raw);
  }

  /** A flag whose environment variable is {@code LEAF_} and its name in capitals. */
  static <T> Flag<T> of(String name, String defaultValue, String help, Parser<T> parser) {
    return new Flag<>(
        name,
        "LEAF_" + name.toUpperCase(Locale.ROOT).replace('-', '_'),
        defaultValue,
        help,
        parser);
  }

  /** The flag as it is written on the command line. */
  public String option() {
    return "--" + name;
  }
}
