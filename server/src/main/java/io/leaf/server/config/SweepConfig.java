package io.leaf.server.config;

import java.time.Duration;

/**
 * When idle tags lose their cached segments.
 *
 * @param idleTtl a tag without a request this long is evicted
 * @param tick how often the sweeper looks; at most {@code idleTtl}
 */
public record SweepConfig(Duration idleTtl, Duration tick) {

  static SweepConfig from(FlagValues v) {
    Duration idleTtl = v.get(Flags.IDLE_TTL);
    Duration tick = v.get(Flags.SWEEP_TICK);
    if (tick.compareTo(idleTtl) > 0) {
      throw new IllegalArgumentException(
          "--sweep-tick (" + tick + ") must not exceed --idle-ttl (" + idleTtl + ")");
    }
    return new SweepConfig(idleTtl, tick);
  }
}
