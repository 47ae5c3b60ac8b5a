package io.leaf.server.security;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The tags a token may use: exact names and {@code prefix*} patterns, or {@code *} for every tag,
 * as the token file's TAGS column writes them (comma-separated). Immutable; {@link #allows} costs a
 * hash lookup and one {@code startsWith} per prefix.
 */
public final class TagScope {

  /** Every tag. */
  public static final TagScope ALL = new TagScope(true, Set.of(), List.of(), "*");

  private final boolean all;
  private final Set<String> exact;
  private final List<String> prefixes;
  private final String text;

  private TagScope(boolean all, Set<String> exact, List<String> prefixes, String text) {
    this.all = all;
    this.exact = exact;
    this.prefixes = prefixes;
    this.text = text;
  }

  /**
   * The scope {@code text} writes: {@code *}, or comma-separated names and {@code prefix*} patterns
   * ({@code orders,billing.*}).
   *
   * @throws IllegalArgumentException one line saying what is wrong with it, never repeating it
   */
  public static TagScope parse(String text) {
    if (text.equals("*")) {
      return ALL;
    }
    Set<String> exact = new HashSet<>();
    List<String> prefixes = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      if (part.isEmpty()) {
        throw new IllegalArgumentException(
            "TAGS has an empty entry (two commas, or one at an" + " end)");
      }
      int star = part.indexOf('*');
      if (star < 0) {
        exact.add(part);
      } else if (star == part.length() - 1 && star > 0) {
        prefixes.add(part.substring(0, star));
      } else {
        throw new IllegalArgumentException(
            "TAGS entry "
                + (exact.size() + prefixes.size() + 1)
                + " may hold '*' only at its end, after a prefix (or be '*' alone, for every tag)");
      }
    }
    return new TagScope(false, Set.copyOf(exact), List.copyOf(prefixes), text);
  }

  /** Whether every tag is in scope. */
  public boolean all() {
    return all;
  }

  /** Whether {@code tag} is in scope. */
  public boolean allows(String tag) {
    if (all || exact.contains(tag)) {
      return true;
    }
    for (String p : prefixes) {
      if (tag.startsWith(p)) {
        return true;
      }
    }
    return false;
  }

  /** The scope as the token file writes it. */
  @Override
  public String toString() {
    return text;
  }
}
