package io.leaf.client;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * What the server read back from one formatted number: its period, its sequence in that period
 * (empty when the server may not show it) and whether its check character holds.
 *
 * @param period the period's key: {@code yyyyMMdd} (daily reset), {@code yyyyMM} (monthly), {@code
 *     yyyy} (yearly), empty (never reset)
 * @param sequence the number's sequence in its period; empty for an opaque number read without the
 *     admin token
 * @param checkValid true when the pattern has no check character or the number's one is right
 */
public record FormattedIdParts(String period, OptionalLong sequence, boolean checkValid) {

  public FormattedIdParts {
    Objects.requireNonNull(period, "period");
    Objects.requireNonNull(sequence, "sequence");
  }

  /** The server's reply; its sequence -1 (hidden) becomes empty. */
  static FormattedIdParts from(io.leaf.v1.FormattedIdParts reply) {
    long s = reply.getSequence();
    return new FormattedIdParts(
        reply.getPeriod(),
        s < 0 ? OptionalLong.empty() : OptionalLong.of(s),
        reply.getCheckValid());
  }
}
