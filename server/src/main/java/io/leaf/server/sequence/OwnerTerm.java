package io.leaf.server.sequence;

/**
 * One owner term of a STRICT tag as a sequence call sees it: values may leave only while {@link
 * #mayIssue()} holds, and every ceiling raise names the lease ({@link #owner()}, {@link #epoch()})
 * so the database refuses the raise of an owner that was deposed.
 */
public interface OwnerTerm {

  /** Unique among this server's terms (of every tag): memory of another term is never reused. */
  long id();

  /** This server's {@code --advertise-address}, as the lease row names it. */
  String owner();

  /** The lease epoch of this term. */
  long epoch();

  /** Whether the term is issuing and within its fence now (read on the monotonic clock). */
  boolean mayIssue();
}
