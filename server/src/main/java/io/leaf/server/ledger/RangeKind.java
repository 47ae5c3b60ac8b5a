package io.leaf.server.ledger;

import java.util.Locale;

/** Why a range is in the ledger: a segment load, ReserveIds' own write, or a hand-back. */
public enum RangeKind {
  /** A segment a server loaded into its buffer. */
  SEGMENT,
  /** ReserveIds' dedicated write: every ID of it went to the caller. */
  RESERVE,
  /** The unissued rest a server handed back at a graceful stop: none of it was issued there. */
  RETURNED;

  /** As the {@code kind} column and the API write it: {@code segment}, {@code reserve}, … */
  public String text() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether IDs of such a range went to callers (segment, reserve). */
  public boolean issues() {
    return this != RETURNED;
  }

  /** The kind {@code text} names. */
  public static RangeKind of(String text) {
    return valueOf(text.toUpperCase(Locale.ROOT));
  }
}
