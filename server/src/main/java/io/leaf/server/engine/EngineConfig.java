package io.leaf.server.engine;

import java.time.Duration;

/**
 * Tuning of the {@link SegmentAllocator}.
 *
 * @param maxStep the dynamic step never doubles past this
 * @param loaderThreads threads loading segments from the database
 * @param loaderQueue loads that may wait for a loader thread before new ones are refused
 * @param minBackoff pause after the first failed load of a tag; doubles per failure
 * @param maxBackoff longest pause between loads of a tag whose database is failing
 */
public record EngineConfig(int maxStep, int loaderThreads, int loaderQueue, Duration minBackoff,
    Duration maxBackoff) {

  public static final EngineConfig DEFAULTS = new EngineConfig(StepPolicy.DEFAULT_MAX_STEP, 8,
      10_000, Duration.ofMillis(100), Duration.ofSeconds(5));

  public EngineConfig {
    if (maxStep < 1 || maxStep > 1_000_000_000) {
      throw new IllegalArgumentException("maxStep must be between 1 and 1000000000: " + maxStep);
    }
    if (loaderThreads < 1) {
      throw new IllegalArgumentException("loaderThreads must be at least 1: " + loaderThreads);
    }
    if (loaderQueue < 1) {
      throw new IllegalArgumentException("loaderQueue must be at least 1: " + loaderQueue);
    }
    if (minBackoff.isNegative() || maxBackoff.compareTo(minBackoff) < 0) {
      throw new IllegalArgumentException("backoff must satisfy 0 <= min <= max: " + minBackoff
          + ", " + maxBackoff);
    }
  }

  public EngineConfig withMaxStep(int value) {
    return new EngineConfig(value, loaderThreads, loaderQueue, minBackoff, maxBackoff);
  }

  public EngineConfig withLoaderThreads(int value) {
    return new EngineConfig(maxStep, value, loaderQueue, minBackoff, maxBackoff);
  }

  public EngineConfig withBackoff(Duration min, Duration max) {
    return new EngineConfig(maxStep, loaderThreads, loaderQueue, min, max);
  }
}
