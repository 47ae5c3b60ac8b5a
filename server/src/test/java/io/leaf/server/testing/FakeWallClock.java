package io.leaf.server.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A wall clock that moves only when told to, forwards or backwards (a clock step). */
public final class FakeWallClock implements InstantSource {

  private final AtomicLong millis;

  public FakeWallClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }

  @Override
  public long millis() {
    return millis.get();
  }

  public FakeWallClock advance(Duration d) {
    millis.addAndGet(d.toMillis());
    return this;
  }

  public FakeWallClock set(long newMillis) {
    millis.set(newMillis);
    return this;
  }
}
