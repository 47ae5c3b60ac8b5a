package io.leaf.server.testing;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Real-time order per key ({@link OrderChecker} for each key): a violation is a call whose value is
 * not above every value of the same key returned before it was sent; a repeat is a value of a key
 * returned twice.
 *
 * <p>Thread-safe.
 */
public final class KeyedOrderChecker {

  private final Map<String, OrderChecker> byKey = new ConcurrentHashMap<>();
  private final AtomicInteger calls = new AtomicInteger();

  /** A call for {@code key} sent at {@code sentNanos} that returned {@code value}. */
  public void record(String key, long sentNanos, long returnedNanos, long value) {
    byKey.computeIfAbsent(key, k -> new OrderChecker()).record(sentNanos, returnedNanos, value);
    calls.incrementAndGet();
  }

  public int calls() {
    return calls.get();
  }

  public int keys() {
    return byKey.size();
  }

  public int violations() {
    return byKey.values().stream().mapToInt(OrderChecker::violations).sum();
  }

  public int repeats() {
    return byKey.values().stream().mapToInt(OrderChecker::repeats).sum();
  }
}
