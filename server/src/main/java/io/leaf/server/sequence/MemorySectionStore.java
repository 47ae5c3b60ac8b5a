package io.leaf.server.sequence;

import java.util.HashMap;
import java.util.Map;

/**
 * {@link SectionStore} in memory with the database's rules, the lease judged by {@code lease} (for
 * tests and benchmarks; no main-code default builds it). Tests may move a ceiling back ({@link
 * #put}), as a restored backup would.
 */
public final class MemorySectionStore implements SectionStore {

  private final LeaseCheck lease;
  private final Map<String, Long> ceilings = new HashMap<>();
  private long raises;

  public MemorySectionStore(LeaseCheck lease) {
    this.lease = lease;
  }

  @Override
  public void createSchemaIfMissing() {}

  @Override
  public synchronized long ceiling(String bizTag, int section) {
    return ceilings.getOrDefault(bizTag + '/' + section, 0L);
  }

  @Override
  public synchronized boolean raise(
      String bizTag, int section, long from, long to, String owner, long epoch) {
    String k = bizTag + '/' + section;
    if (ceilings.getOrDefault(k, 0L) != from
        || !lease.holds(Sequences.leaseKey(bizTag, Sequences.groupOf(section)), owner, epoch)) {
      return false;
    }
    ceilings.put(k, to);
    raises++;
    return true;
  }

  @Override
  public synchronized Map<Integer, Long> raiseGroup(
      String bizTag, int group, long step, String owner, long epoch) {
    Map<Integer, Long> out = new HashMap<>();
    if (!lease.holds(Sequences.leaseKey(bizTag, group), owner, epoch)) {
      return out;
    }
    for (int i = group * Sequences.PER_GROUP; i < (group + 1) * Sequences.PER_GROUP; i++) {
      long before = ceilings.getOrDefault(bizTag + '/' + i, 0L);
      if (before < Section.MAX_CEILING - step) {
        ceilings.put(bizTag + '/' + i, before + step);
        out.put(i, before + step);
      }
    }
    raises++;
    return out;
  }

  /** Sets a ceiling as it is (a restored backup or a test's start). */
  public synchronized void put(String bizTag, int section, long ceiling) {
    ceilings.put(bizTag + '/' + section, ceiling);
  }

  /** Raises that succeeded. */
  public synchronized long raises() {
    return raises;
  }
}
