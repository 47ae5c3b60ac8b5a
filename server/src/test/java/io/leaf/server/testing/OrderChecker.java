package io.leaf.server.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Real-time order, checked offline as Jepsen does: every call's send and return times on one
 * monotonic clock across all callers; a violation is a call whose first ID is not above every ID
 * returned before it was sent (or a batch that is not one increasing run).
 *
 * <p>Thread-safe.
 */
public final class OrderChecker {

  private record Call(long sentNanos, long returnedNanos, long[] ids) {}

  private final List<Call> calls = new ArrayList<>();

  /** A call sent at {@code sentNanos} that returned {@code ids} at {@code returnedNanos}. */
  public synchronized void record(long sentNanos, long returnedNanos, long... ids) {
    calls.add(new Call(sentNanos, returnedNanos, ids.clone()));
  }

  public synchronized int calls() {
    return calls.size();
  }

  /** Calls that break real-time order. */
  public synchronized int violations() {
    Call[] byReturn = calls.toArray(new Call[0]);
    Arrays.sort(byReturn, Comparator.comparingLong(Call::returnedNanos));
    long[] returned = new long[byReturn.length];
    long[] maxUpTo = new long[byReturn.length];
    long max = Long.MIN_VALUE;
    for (int i = 0; i < byReturn.length; i++) {
      returned[i] = byReturn[i].returnedNanos;
      for (long id : byReturn[i].ids) {
        max = Math.max(max, id);
      }
      maxUpTo[i] = max;
    }
    int violations = 0;
    for (Call c : calls) {
      for (int i = 1; i < c.ids.length; i++) {
        if (c.ids[i] <= c.ids[i - 1]) {
          violations++;
          break;
        }
      }
      // The calls that returned strictly before this one was sent.
      int before = lowerBound(returned, c.sentNanos);
      if (before > 0 && c.ids.length > 0 && c.ids[0] <= maxUpTo[before - 1]) {
        violations++;
      }
    }
    return violations;
  }

  /** IDs returned more than once. */
  public synchronized int repeats() {
    Set<Long> seen = new HashSet<>();
    int repeats = 0;
    for (Call c : calls) {
      for (long id : c.ids) {
        if (!seen.add(id)) {
          repeats++;
        }
      }
    }
    return repeats;
  }

  private static int lowerBound(long[] sorted, long key) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
