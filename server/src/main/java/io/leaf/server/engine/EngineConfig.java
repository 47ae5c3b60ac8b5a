package io.leaf.server.engine;

import java.time.Duration;

/**
 * Tuning and limits of the {@link SegmentAllocator}.
 *
 * @param maxStep the dynamic step never doubles past this
 * @param loaders the threads loading segments of tags this server has served, and the loads that
 *     may wait for one
 * @param firstLoads the threads loading the first segment of tags this server does not hold, and
 *     the first loads that may wait for one
 * @param backoff the pause between loads of a tag whose database is failing
 * @param maxWaiting calls that may wait for a segment at once, server-wide
 * @param missingTagTtl how long a tag the database did not have is answered NOT_FOUND from memory
 */
public record EngineConfig(
    int maxStep,
    LoadPool loaders,
    LoadPool firstLoads,
    Backoff backoff,
    int maxWaiting,
    Duration missingTagTtl) {

  public static final EngineConfig DEFAULTS =
      new EngineConfig(
          StepPolicy.DEFAULT_MAX_STEP,
          new LoadPool(8, 10_000),
          new LoadPool(2, 100),
          new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5)),
          10_000,
          Duration.ofSeconds(2));

  public EngineConfig {
    if (maxStep < 1 || maxStep > 1_000_000_000) {
      throw new IllegalArgumentException("maxStep must be between 1 and 1000000000: " + maxStep);
    }
    atLeastOne("loaderThreads", loaders.threads());
    atLeastOne("loaderQueue", loaders.queue());
    atLeastOne("maxWaiting", maxWaiting);
    atLeastOne("firstLoadThreads", firstLoads.threads());
    atLeastOne("firstLoadQueue", firstLoads.queue());
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
    return new EngineConfig(value, loaders, firstLoads, backoff, maxWaiting, missingTagTtl);
  }

  public EngineConfig withLoaderThreads(int value) {
    return new EngineConfig(
        maxStep,
        new LoadPool(value, loaders.queue()),
        firstLoads,
        backoff,
        maxWaiting,
        missingTagTtl);
  }

  public EngineConfig withLoaderQueue(int value) {
    return new EngineConfig(
        maxStep,
        new LoadPool(loaders.threads(), value),
        firstLoads,
        backoff,
        maxWaiting,
        missingTagTtl);
  }

  public EngineConfig withBackoff(Duration min, Duration max) {
    return new EngineConfig(
        maxStep, loaders, firstLoads, new Backoff(min, max), maxWaiting, missingTagTtl);
  }

  public EngineConfig withMaxWaiting(int value) {
    return new EngineConfig(maxStep, loaders, firstLoads, backoff, value, missingTagTtl);
  }

  public EngineConfig withFirstLoads(int threads, int queue) {
    return new EngineConfig(
        maxStep, loaders, new LoadPool(threads, queue), backoff, maxWaiting, missingTagTtl);
  }

  public EngineConfig withMissingTagTtl(Duration value) {
    return new EngineConfig(maxStep, loaders, firstLoads, backoff, maxWaiting, value);
  }
}
