package io.leaf.server.security;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads the token file ({@code --tokens-file}); a file that breaks a rule is refused whole with one
 * line naming the line number, the column and the rule, never what a column holds.
 *
 * <p>One token a line, {@code NAME HASH ROLE TAGS [RATE]} separated by spaces or tabs, {@code #}
 * starting a comment, blank lines ignored. {@code HASH} is {@code sha256:} and the 64 hex digits of
 * the token's SHA-256; names and hashes are unique. No message repeats what a column holds (a token
 * pasted into the wrong column must not reach a log), only a valid name.
 */
public final class TokenFileParser {

  /** The most tokens a file may hold (each becomes a metric series). */
  public static final int MAX_TOKENS = 10_000;

  /** What a name may be: it appears in statuses, metric labels and logs. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

  private static final Pattern HASH = Pattern.compile("sha256:[0-9a-fA-F]{64}");
  private static final Pattern FIELDS = Pattern.compile("[ \t]+");

  private TokenFileParser() {}

  /**
   * The tokens {@code text} lists, in file order.
   *
   * @throws IllegalArgumentException {@code line N: <reason>}
   */
  public static List<TokenEntry> parse(String text) {
    List<TokenEntry> out = new ArrayList<>();
    Map<String, Integer> names = new HashMap<>();
    Map<String, String> hashes = new HashMap<>();
    String[] lines = text.split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      int number = i + 1;
      String line = lines[i];
      int hash = line.indexOf('#');
      String content = (hash < 0 ? line : line.substring(0, hash)).strip();
      if (content.isEmpty()) {
        continue;
      }
      TokenEntry entry;
      try {
        entry = entry(content);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("line " + number + ": " + e.getMessage());
      }
      Integer sameName = names.putIfAbsent(entry.name(), number);
      if (sameName != null) {
        throw new IllegalArgumentException(
            "line " + number + ": NAME " + entry.name() + " is already on line " + sameName);
      }
      String digest = HexFormat.of().formatHex(entry.digest());
      String sameHash = hashes.putIfAbsent(digest, entry.name());
      if (sameHash != null) {
        throw new IllegalArgumentException(
            "line "
                + number
                + ": "
                + entry.name()
                + " has the same HASH as "
                + sameHash
                + " (one token, one line)");
      }
      if (out.size() == MAX_TOKENS) {
        throw new IllegalArgumentException(
            "line " + number + ": more than " + MAX_TOKENS + " tokens");
      }
      out.add(entry);
    }
    return out;
  }

  private static TokenEntry entry(String content) {
    String[] f = FIELDS.split(content);
    if (f.length < 4 || f.length > 5) {
      throw new IllegalArgumentException(
          "expected NAME HASH ROLE TAGS [RATE], got " + f.length + " fields");
    }
    if (!NAME.matcher(f[0]).matches()) {
      throw new IllegalArgumentException(
          "NAME (the first column) must be 1 to 64 of" + " A-Z a-z 0-9 _ . : -");
    }
    if (!HASH.matcher(f[1]).matches()) {
      // Never echoed: a token pasted here by mistake must not reach a log.
      throw new IllegalArgumentException(
          "HASH of "
              + f[0]
              + " must be sha256: and 64 hex digits"
              + " (printf %s \"$TOKEN\" | sha256sum | cut -d' ' -f1)");
    }
    Role role = Role.fromFile(f[2]);
    if (role == null) {
      throw new IllegalArgumentException("ROLE of " + f[0] + " must be issue, reserve or admin");
    }
    TagScope scope;
    IdRate rate;
    try {
      scope = TagScope.parse(f[3]);
      rate = f.length == 5 ? IdRate.parse(f[4]) : null;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + " (" + f[0] + ")");
    }
    byte[] digest = HexFormat.of().parseHex(f[1].substring("sha256:".length()));
    return new TokenEntry(f[0], digest, role, scope, rate);
  }
}
