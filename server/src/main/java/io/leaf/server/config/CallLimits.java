package io.leaf.server.config;

import java.time.Duration;

/**
 * What one ID call may ask for: how many IDs at most, and how long it may wait for a segment.
 *
 * @param maxBatch largest count NextIdBatch and ReserveIds accept
 * @param maxWait longest a call waits for a segment when its deadline is later or unset
 */
public record CallLimits(int maxBatch, Duration maxWait) {}
