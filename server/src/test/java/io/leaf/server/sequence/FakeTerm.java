package io.leaf.server.sequence;

import java.util.concurrent.atomic.AtomicLong;

/** An owner term for tests: issuing until {@link #end()}. */
final class FakeTerm implements OwnerTerm {

  private static final AtomicLong IDS = new AtomicLong(1_000_000);

  private final long id = IDS.incrementAndGet();
  private final String owner;
  private final long epoch;
  private volatile boolean issuing = true;

  FakeTerm(String owner, long epoch) {
    this.owner = owner;
    this.epoch = epoch;
  }

  void end() {
    issuing = false;
  }

  @Override
  public long id() {
    return id;
  }

  @Override
  public String owner() {
    return owner;
  }

  @Override
  public long epoch() {
    return epoch;
  }

  @Override
  public boolean mayIssue() {
    return issuing;
  }
}
