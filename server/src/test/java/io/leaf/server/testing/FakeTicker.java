package io.leaf.server.testing;

import com.google.common.base.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker that moves only when told to. */
public final class FakeTicker extends Ticker {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Override
  public long read() {
    return nanos.get();
  }

  public FakeTicker advance(Duration d) {
    nanos.addAndGet(d.toNanos());
    return this;
  }
}
