package io.leaf.server.security;

import java.util.Locale;

/**
 * What a token may do, each role granting everything the roles before it grant: {@link #ISSUE}
 * takes IDs, {@link #RESERVE} also reserves ranges, {@link #ADMIN} also changes tags.
 */
public enum Role {
  /**
   * NextId, NextIdBatch, the formatted and snowflake RPCs, InitCache, GetTag, ListTags, WhoIssued.
   */
  ISSUE,
  /** ISSUE and ReserveIds. */
  RESERVE,
  /** Everything: CreateTag, UpdateStep, SetFormat too, and opaque sequences in parsed IDs. */
  ADMIN;

  /** Whether this role grants what {@code needed} grants. */
  public boolean grants(Role needed) {
    return compareTo(needed) >= 0;
  }

  /** The role as the token file writes it: {@code issue}, {@code reserve}, {@code admin}. */
  public String fileName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The role {@code text} names as the token file writes it; null when it names none. */
  static Role fromFile(String text) {
    for (Role r : values()) {
      if (r.fileName().equals(text)) {
        return r;
      }
    }
    return null;
  }
}
