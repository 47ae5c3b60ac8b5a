package io.leaf.server.engine;

/**
 * When to start another segment load of a tag: once the IDs it holds and has coming would run out
 * within {@code safety} times the recent load latency at the recent rate, with at most {@code
 * maxAhead} segments queued or loading beyond the current one.
 *
 * <p>Leaf's own rule stays the floor: a tag with nothing ahead loads once 10% of its current
 * segment is used. Pure arithmetic: the caller passes the measurements, taken with the engine's
 * ticker.
 *
 * <p>Example: 33,000 IDs/s, loads taking 5 ms and a safety of 3 want 495 IDs ahead; with step 100
 * that is the current segment's rest plus up to 5 more, loading side by side, which a single
 * preload at 10% (90 IDs, 2.7 ms) cannot hide.
 *
 * @param safety how many load latencies the IDs ahead should last
 * @param maxAhead the most segments queued or loading beyond the current one
 */
public record PrefetchPolicy(double safety, int maxAhead) {

  /** Latencies jitter (a loaded machine, a busy database): three of them, not one. */
  public static final double DEFAULT_SAFETY = 3.0;

  /**
   * Step 100 at 40,000 IDs/s with 5 ms loads wants 6 ahead. Each costs a segment's few dozen bytes
   * and, while loading, one loader thread: 6 leaves 2 of the default 8 to the other tags.
   */
  public static final int DEFAULT_MAX_AHEAD = 6;

  public static final PrefetchPolicy DEFAULT =
      new PrefetchPolicy(DEFAULT_SAFETY, DEFAULT_MAX_AHEAD);

  public PrefetchPolicy {
    if (!(safety >= 1)) {
      throw new IllegalArgumentException("safety must be at least 1: " + safety);
    }
    if (maxAhead < 1) {
      throw new IllegalArgumentException("maxAhead must be at least 1: " + maxAhead);
    }
  }

  /**
   * True when one more load should start now.
   *
   * @param idsLeft IDs left in the current segment and the loaded segments queued behind it
   * @param idsLoading IDs the loads in flight will bring
   * @param segmentsAhead segments queued plus loads in flight
   * @param pastPreloadPoint the caller took an ID at or past the current segment's 10% point
   * @param idsPerNano the tag's recent rate; 0 when not yet known
   * @param loadNanos the tag's recent load latency; 0 when not yet known
   */
  public boolean shouldLoad(
      long idsLeft,
      long idsLoading,
      int segmentsAhead,
      boolean pastPreloadPoint,
      double idsPerNano,
      long loadNanos) {
    if (segmentsAhead >= maxAhead) {
      return false;
    }
    if (segmentsAhead == 0 && pastPreloadPoint) {
      return true;
    }
    if (idsPerNano <= 0 || loadNanos <= 0) {
      return false;
    }
    return idsLeft + idsLoading < idsPerNano * loadNanos * safety;
  }
}
