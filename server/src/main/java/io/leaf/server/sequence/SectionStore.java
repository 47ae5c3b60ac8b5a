package io.leaf.server.sequence;

/**
 * Where each section's ceiling lives ({@code leaf_sequence_section}): every value ever issued for a
 * key of the section is at most its ceiling. A raise is one conditional write: it succeeds only
 * when the ceiling is still the one read and the lease named is still its group's live lease.
 */
public interface SectionStore {

  /** Creates the table when missing. */
  void createSchemaIfMissing();

  /** The section's ceiling; 0 when it has no row (no value was ever issued for its keys). */
  long ceiling(String bizTag, int section);

  /**
   * Sets the ceiling from {@code from} (0: no row yet) to {@code to} if it still is {@code from}
   * and {@code owner} still holds the lease of the section's group ({@link Sequences#leaseKey})
   * with {@code epoch}.
   *
   * @return false when either condition failed (nothing written)
   */
  boolean raise(String bizTag, int section, long from, long to, String owner, long epoch);

  /**
   * Raises the ceiling of each section of {@code group} by {@code step} (a section without a row
   * from 0) in one transaction, if {@code owner} still holds the group's lease with {@code epoch}:
   * a new term's start, one round trip for all its sections.
   *
   * @return each raised section's new ceiling; empty when the lease did not hold (nothing written)
   */
  java.util.Map<Integer, Long> raiseGroup(
      String bizTag, int group, long step, String owner, long epoch);
}
