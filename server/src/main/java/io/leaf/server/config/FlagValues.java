package io.leaf.server.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The flags given on a command line, each falling back to its environment variable and then to its
 * default; {@link #get} parses a flag's text with the flag's own parser.
 */
final class FlagValues {

  private final Map<String, String> given;
  private final Function<String, String> env;

  private FlagValues(Map<String, String> given, Function<String, String> env) {
    this.given = given;
    this.env = env;
  }

  /**
   * Reads {@code --name value} and {@code --name=value} arguments.
   *
   * @throws IllegalArgumentException an argument that is no known flag, a flag without a value, a
   *     token given empty; one line that never repeats a value
   */
  static FlagValues read(String[] args, Function<String, String> env) {
    Map<String, Flag<?>> known = new LinkedHashMap<>();
    Flags.ALL.forEach(f -> known.put(f.name(), f));
    Map<String, String> given = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        // Not echoed: a stray word is often a secret whose flag went missing.
        throw new IllegalArgumentException(
            "unexpected argument at position " + (i + 1) + ", not a --flag (see --help)");
      }
      String name = arg.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else {
        if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
          // "--admin-token $EMPTY --client-token=x" must not make the next flag a token.
          throw new IllegalArgumentException(
              "--"
                  + name
                  + " needs a value"
                  + (notEmpty(name) ? "" : " (use --" + name + "= for an empty one)"));
        }
        value = args[++i];
      }
      if (!known.containsKey(name)) {
        throw new IllegalArgumentException("unknown flag --" + name + " (see --help)");
      }
      given.put(name, value);
    }
    for (Flag<?> f : Flags.NOT_EMPTY) {
      if ("".equals(given.get(f.name()))) {
        // As an empty token file is: an empty token given on purpose is a mistake, not "none".
        throw new IllegalArgumentException(
            f.option() + " is empty; leave it out to require" + " no token");
      }
      if (!given.containsKey(f.name()) && "".equals(env.apply(f.env()))) {
        // A variable set but empty (a Secret that did not fill in) must not turn the token off.
        throw new IllegalArgumentException(
            f.env() + " is set but empty; unset it to require no" + " token");
      }
    }
    return new FlagValues(given, env);
  }

  private static boolean notEmpty(String name) {
    return Flags.NOT_EMPTY.stream().anyMatch(f -> f.name().equals(name));
  }

  /** The flag's text: given, else from its environment variable when not empty, else default. */
  String raw(Flag<?> flag) {
    if (given.containsKey(flag.name())) {
      return given.get(flag.name());
    }
    String fromEnv = env.apply(flag.env());
    return fromEnv != null && !fromEnv.isEmpty() ? fromEnv : flag.defaultValue();
  }

  /** Whether the flag was given, on the command line or by its environment variable. */
  boolean isSet(Flag<?> flag) {
    String fromEnv = env.apply(flag.env());
    return given.containsKey(flag.name()) || fromEnv != null && !fromEnv.isEmpty();
  }

  /** The flag's value. */
  <T> T get(Flag<T> flag) {
    return flag.parser().parse(flag.name(), raw(flag));
  }
}
