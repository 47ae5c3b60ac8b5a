package io.leaf.server.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.Lock;

/**
 * The passes a graceful stop makes over every buffer of a {@link TagTable}, each under its lock.
 */
final class StopPasses {

  private StopPasses() {}

  /**
   * For the hand-back at a graceful stop: removes and closes every buffer (no load installs in a
   * closed one), then seals its segments ({@link TagBuffer#seal}), each under its stripe lock;
   * returns the unissued runs found.
   */
  static List<UnissuedRun> sealAll(TagTable tags) {
    List<UnissuedRun> out = new ArrayList<>();
    for (TagBuffer b : tags.all()) {
      Lock lock = tags.lock(b.bizTag());
      lock.lock();
      try {
        if (tags.removeLocked(b)) {
          UnissuedRun run = b.seal();
          if (run != null) {
            out.add(run);
          }
        }
      } finally {
        lock.unlock();
      }
    }
    return out;
  }

  /** Takes the waiting calls off every buffer, each under its stripe lock, to be woken after. */
  static List<Set<WaitingCall>> detachAllWaiters(TagTable tags) {
    List<Set<WaitingCall>> out = new ArrayList<>();
    for (TagBuffer b : tags.all()) {
      Lock lock = tags.lock(b.bizTag());
      lock.lock();
      try {
        out.add(b.loads().detachWaiters());
      } finally {
        lock.unlock();
      }
    }
    return out;
  }
}
