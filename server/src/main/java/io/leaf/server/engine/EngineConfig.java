package io.leaf.server.engine;

import java.time.Duration;

/**
 * Tuning and limits of the {@link SegmentAllocator}.
 *
 * @param maxStep the dynamic step never doubles past this
 * @param loaderThreads threads loading segments of tags this server has served
 * @param loaderQueue such loads that may wait for a loader thread before new ones are refused
 * @param minBackoff pause after the first failed load of a tag; doubles per failure
 * @param maxBackoff longest pause between loads of a tag whose database is failing
 * @param maxWaiting calls that may wait for a segment at once, server-wide
 * @param firstLoadThreads threads loading the first segment of tags this server does not hold
 * @param firstLoadQueue first loads that may wait for such a thread before new ones are refused
 * @param missingTagTtl how long a tag the database did not have is answered NOT_FOUND from memory
 */
public record EngineConfig(
    int maxStep,
    int loaderThreads,
    int loaderQueue,
    Duration minBackoff,
    Duration maxBackoff,
    int maxWaiting,
    int firstLoadThreads,
    int firstLoadQueue,
    Duration missingTagTtl) {

  public static final EngineConfig DEFAULTS =
      new EngineConfig(
          StepPolicy.DEFAULT_MAX_STEP,
          8,
          10_000,
          Duration.ofMillis(100),
          Duration.ofSeconds(5),
          10_000,
          2,
          100,
          Duration.ofSeconds(2));

  public EngineConfig {
    if (maxStep < 1 || maxStep > 1_000_000_000) {
      throw new IllegalArgumentException("maxStep must be between 1 and 1000000000: " + maxStep);
    }
    atLeastOne("loaderThreads", loaderThreads);
    atLeastOne("loaderQueue", loaderQueue);
    atLeastOne("maxWaiting", maxWaiting);
    atLeastOne("firstLoadThreads", firstLoadThreads);
    atLeastOne("firstLoadQueue", firstLoadQueue);
    if (minBackoff.isNegative() || maxBackoff.compareTo(minBackoff) < 0) {
      throw new IllegalArgumentException(
          "backoff must satisfy 0 <= min <= max: " + minBackoff + ", " + maxBackoff);
    }
    if (missingTagTtl.isNegative()) {
      throw new IllegalArgumentException("missingTagTtl must not be negative: " + missingTagTtl);
    }
  }

  private static void atLeastOne(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be at least 1: " + value);
    }
  }

  public EngineConfig withMaxStep(int value) {
    return new EngineConfig(
        value,
        loaderThreads,
        loaderQueue,
        minBackoff,
        maxBackoff,
        maxWaiting,
        firstLoadThreads,
        firstLoadQueue,
        missingTagTtl);
  }

  public EngineConfig withLoaderThreads(int value) {
    return new EngineConfig(
        maxStep,
        value,
        loaderQueue,
        minBackoff,
        maxBackoff,
        maxWaiting,
        firstLoadThreads,
        firstLoadQueue,
        missingTagTtl);
  }

  public EngineConfig withLoaderQueue(int value) {
    return new EngineConfig(
        maxStep,
        loaderThreads,
        value,
        minBackoff,
        maxBackoff,
        maxWaiting,
        firstLoadThreads,
        firstLoadQueue,
        missingTagTtl);
  }

  public EngineConfig withBackoff(Duration min, Duration max) {
    return new EngineConfig(
        maxStep,
        loaderThreads,
        loaderQueue,
        min,
        max,
        maxWaiting,
        firstLoadThreads,
        firstLoadQueue,
        missingTagTtl);
  }

  public EngineConfig withMaxWaiting(int value) {
    return new EngineConfig(
        maxStep,
        loaderThreads,
        loaderQueue,
        minBackoff,
        maxBackoff,
        value,
        firstLoadThreads,
        firstLoadQueue,
        missingTagTtl);
  }

  public EngineConfig withFirstLoads(int threads, int queue) {
    return new EngineConfig(
        maxStep,
        loaderThreads,
        loaderQueue,
        minBackoff,
        maxBackoff,
        maxWaiting,
        threads,
        queue,
        missingTagTtl);
  }

  public EngineConfig withMissingTagTtl(Duration value) {
    return new EngineConfig(
        maxStep,
        loaderThreads,
        loaderQueue,
        minBackoff,
        maxBackoff,
        maxWaiting,
        firstLoadThreads,
        firstLoadQueue,
        value);
  }
}
