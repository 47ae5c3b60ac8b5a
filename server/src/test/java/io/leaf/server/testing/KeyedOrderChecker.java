package io.leaf.server.testing;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Real-time order per key ({@link OrderChecker} for each key): a violation is a call whose value is
 * not above every value of the same key returned before it was sent; a repeat is a value of a key
 * returned twice.
 *
 * <p>Thread-safe.
 */
public final class KeyedOrderChecker {

  private final Map<String, OrderChecker> byKey = new ConcurrentHashMap<>();

  /** A call for {@code key} sent at {@code sentNanos} that returned {@code value}. */
  public void record(String key, long sentNanos, long returnedNanos, long value) {
    byKey.computeIfAbsent(key, k -> new OrderChecker()).record(sentNanos, returnedNanos, value);
  }

  public int calls() {
    return byKey.values().stream().mapToInt(OrderChecker::calls).sum();
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
