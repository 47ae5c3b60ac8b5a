package io.leaf.server.engine;

import java.util.function.Consumer;

/**
 * Who the engine tells what it does, fixed when the {@link SegmentAllocator} is built: the observer
 * of its loads and missing-tag answers, and the taker of each buffer that stays after its first
 * load (the idle sweeper).
 *
 * <p>Both are called on loader and transport threads and must be thread-safe, fast and must not
 * throw; {@code onCached} is called under the tag's stripe lock, so it must only hand the buffer on
 * (a lock-free queue), never wait.
 *
 * @param events where segment loads, waits and missing-tag answers are reported
 * @param onCached called once for every buffer that stays after its first load; buffers of tags the
 *     database lacks, or whose first load was refused, never reach it
 */
public record EngineListeners(EngineEvents events, Consumer<TagBuffer> onCached) {

  /** Reports nothing and hands buffers to no one (an engine without metrics or sweeper). */
  public static final EngineListeners NONE = new EngineListeners(EngineEvents.NONE, b -> {});

  public EngineListeners {
    if (events == null || onCached == null) {
      throw new NullPointerException("events and onCached are required (use NONE's)");
    }
  }

  /** These listeners with {@code events} as the observer. */
  public EngineListeners withEvents(EngineEvents events) {
    return new EngineListeners(events, onCached);
  }

  /** These listeners with {@code onCached} as the buffers' taker. */
  public EngineListeners withOnCached(Consumer<TagBuffer> onCached) {
    return new EngineListeners(events, onCached);
  }
}
