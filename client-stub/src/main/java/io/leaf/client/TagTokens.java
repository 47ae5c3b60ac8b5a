package io.leaf.client;

import io.grpc.CallCredentials;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which bearer token a call of a tag sends, for a server whose token file gives each team its own
 * tokens: the token of the longest tag prefix the tag starts with; null when none does (the
 * client's own token, if any, is sent then). Immutable; never shows a token.
 */
final class TagTokens {

  static final TagTokens NONE = new TagTokens(Map.of());

  private record Entry(String prefix, BearerToken token) {}

  /** Longest prefix first. */
  private final List<Entry> entries;

  private TagTokens(Map<String, BearerToken> byPrefix) {
    List<Entry> list = new ArrayList<>();
    byPrefix.forEach((prefix, token) -> list.add(new Entry(prefix, token)));
    list.sort(Comparator.comparingInt((Entry e) -> e.prefix().length()).reversed());
    this.entries = List.copyOf(list);
  }

  /** These tokens and {@code token} for tags starting with {@code prefix} (replacing its own). */
  TagTokens with(String prefix, String token) {
    Objects.requireNonNull(prefix, "tagPrefix");
    BearerToken credentials = new BearerToken(token);
    Map<String, BearerToken> byPrefix = new LinkedHashMap<>();
    entries.forEach(e -> byPrefix.put(e.prefix(), e.token()));
    byPrefix.put(prefix, credentials);
    return new TagTokens(byPrefix);
  }

  /** The token for {@code bizTag}; null when no prefix matches it. */
  CallCredentials forTag(String bizTag) {
    for (Entry e : entries) {
      if (bizTag.startsWith(e.prefix())) {
        return e.token();
      }
    }
    return null;
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  /** The prefixes only. */
  @Override
  public String toString() {
    return entries.stream().map(Entry::prefix).toList().toString();
  }
}
