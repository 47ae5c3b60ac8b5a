package io.leaf.server.sweep;

import io.leaf.server.engine.EngineListeners;
import io.leaf.server.engine.TagBuffer;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * Queues every buffer the engine hands to one {@link IdleTagSweeper} until its next sweep.
 *
 * <p>It is made before the engine (as its {@link EngineListeners#onCached}) so the sweeper, made
 * after, finds every buffer from the first.
 *
 * <p>Cost: one lock-free enqueue per buffer that stays after its first load, safe under the tag's
 * stripe lock. Thread-safety: any number of threads may add; one sweeper drains.
 */
public final class SweepIntake implements Consumer<TagBuffer> {

  private final Queue<TagBuffer> added = new ConcurrentLinkedQueue<>();
  private volatile boolean closed;

  /** Queues {@code b} for the sweeper; dropped once the sweeper is closed. */
  @Override
  public void accept(TagBuffer b) {
    if (!closed) {
      added.add(b);
    }
  }

  /** The next buffer queued, or null when none is. */
  TagBuffer poll() {
    return added.poll();
  }

  /** Takes no buffer from now on (the sweeper is closed). */
  void close() {
    closed = true;
  }
}
