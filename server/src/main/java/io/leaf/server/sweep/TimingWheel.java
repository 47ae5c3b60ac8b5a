package io.leaf.server.sweep;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A hashed timing wheel that can schedule, move and remove a key in O(1) time and fire expirations
 * in amortized O(1) time per key, plus O(1) per elapsed tick.
 *
 * <p>This class is not thread-safe. It is meant to be owned by one thread, typically a sweeper that
 * calls {@link #advance} periodically and applies schedule and remove requests handed to it by
 * other threads; callers that share an instance must synchronize externally.
 *
 * <p>Time is in nanoseconds from an arbitrary origin, as returned by {@link System#nanoTime()}, and
 * is always supplied by the caller: the wheel never reads a clock, so its behaviour depends only on
 * the values it is given. Only differences between times are used, so the values may wrap past
 * {@link Long#MAX_VALUE} like {@code nanoTime} does, provided every deadline and every time passed
 * to {@link #advance} lies within 2<sup>63</sup>-1 ns of {@code startNanos}.
 *
 * <p>Time is cut into ticks of {@link #tickNanos()} starting at {@code startNanos}, and tick {@code
 * n} maps to slot {@code n % slotCount()}. A key fires at the first tick boundary at or after its
 * deadline and never earlier; expirations are only detected on tick boundaries, so a key fires up
 * to one tick after its deadline, plus however late {@code advance} is called. A key due more than
 * one turn of the wheel ahead waits in its slot with its circle, the number of turns still to go,
 * which is decremented each time the slot is visited. Such a key is looked at once per turn, so
 * size the wheel ({@code tickNanos * slots}) to cover the common delays.
 *
 * <p>Keys are handed to the callback of {@link #advance} one at a time, already removed from the
 * wheel, so the callback may schedule or remove any key, including the one it was given. A key that
 * is removed or moved from a callback before its own turn comes does not fire in that tick. A key
 * scheduled from a callback is placed as if the wheel stood at the tick being processed: it never
 * fires in that same tick, but if its new deadline falls within the window being advanced it fires
 * later in the same call to {@code advance}, exactly as it would have had the wheel been advanced
 * one tick at a time.
 *
 * @param <K> the type of the keys; keys are compared with {@code equals} and {@code hashCode}
 */
public final class TimingWheel<K> {

  private final long tickNanos;
  private final long startNanos;
  private final Node<K>[] wheel;

  /**
   * Keys found due in the current tick that have not been handed to the callback yet. Keeping them
   * in a list of their own, and in the index, lets a callback cancel or move them in O(1), and lets
   * a callback that throws leave them in place for the next {@code advance}.
   */
  private final Node<K> expiring = Node.sentinel();

  private final Map<K, Node<K>> index = new HashMap<>();

  /** Ticks processed since {@code startNanos}: every boundary up to this one has been handled. */
  private long currentTick;

  private boolean advancing;

  /**
   * Creates an empty wheel whose tick 0 is at {@code startNanos}.
   *
   * @param tickNanos the length of one tick, which is the resolution of the wheel
   * @param slots the number of slots, so one turn of the wheel spans {@code tickNanos * slots}
   * @param startNanos the time at which the wheel stands, on the same scale as later deadlines
   * @throws IllegalArgumentException if {@code tickNanos} or {@code slots} is not positive
   */
  public TimingWheel(long tickNanos, int slots, long startNanos) {
    if (tickNanos <= 0) {
      throw new IllegalArgumentException("tickNanos must be greater than 0: " + tickNanos);
    }
    if (slots <= 0) {
      throw new IllegalArgumentException("slots must be greater than 0: " + slots);
    }
    this.tickNanos = tickNanos;
    this.startNanos = startNanos;
    @SuppressWarnings("unchecked")
    Node<K>[] sentinels = (Node<K>[]) new Node<?>[slots];
    for (int i = 0; i < slots; i++) {
      sentinels[i] = Node.sentinel();
    }
    this.wheel = sentinels;
  }

  /**
   * Schedules {@code key} to fire at {@code deadlineNanos}, or moves it there if it is already
   * scheduled, whether earlier or later. A deadline at or before the current tick fires on the next
   * {@link #advance} that passes a tick boundary. Amortized O(1).
   *
   * @throws NullPointerException if {@code key} is null
   */
  public void schedule(K key, long deadlineNanos) {
    Objects.requireNonNull(key, "key");
    // The boundary that has already been processed can no longer fire anything, so an overdue
    // deadline goes to the next one.
    long fireTick = Math.max(firstTickAtOrAfter(deadlineNanos), currentTick + 1);
    Node<K> node = index.get(key);
    if (node == null) {
      node = new Node<>(key);
      index.put(key, node);
    } else {
      node.unlink();
    }
    // The slot is first visited (fireTick - currentTick - 1) % slots + 1 ticks from now and then
    // once per turn; each visit before the last one costs one turn.
    node.circle = (fireTick - currentTick - 1) / wheel.length;
    node.linkBefore(wheel[slotOf(fireTick)]);
  }

  /** Removes {@code key}; returns whether it was scheduled. O(1). */
  public boolean remove(K key) {
    Node<K> node = index.remove(key);
    if (node == null) {
      return false;
    }
    node.unlink();
    return true;
  }

  /** Returns whether {@code key} is scheduled and has not fired yet. */
  public boolean contains(K key) {
    return index.containsKey(key);
  }

  /** Returns the number of scheduled keys. */
  public int size() {
    return index.size();
  }

  /**
   * Moves the wheel forward to {@code nowNanos}, tick by tick, and hands every key whose deadline
   * has passed to {@code onExpired}, in deadline-tick order; keys due in the same tick go in the
   * order in which they were last scheduled. The key is no longer in the wheel when {@code
   * onExpired} runs, so {@code onExpired} may re-schedule it; see the class documentation for how
   * keys scheduled from the callback behave. Time going backwards is a no-op.
   *
   * <p>The cost is O(1) per elapsed tick plus O(1) per key visited; an empty wheel skips ahead in
   * O(1) however far time has moved.
   *
   * <p>If {@code onExpired} throws, the exception propagates and the wheel stops at the tick being
   * processed: the keys of that tick not yet handed over stay scheduled, and they and the rest of
   * the elapsed ticks are handled by the next call that passes a tick boundary.
   *
   * @return the number of keys fired
   * @throws NullPointerException if {@code onExpired} is null
   * @throws IllegalStateException if called from {@code onExpired}
   */
  public int advance(long nowNanos, Consumer<? super K> onExpired) {
    Objects.requireNonNull(onExpired, "onExpired");
    if (advancing) {
      throw new IllegalStateException("advance must not be called from onExpired");
    }
    long sinceStart = nowNanos - startNanos;
    if (sinceStart < 0) {
      return 0;
    }
    long targetTick = sinceStart / tickNanos;
    if (targetTick <= currentTick) {
      return 0;
    }
    advancing = true;
    try {
      int fired = 0;
      while (currentTick < targetTick) {
        if (index.isEmpty()) {
          currentTick = targetTick;
          break;
        }
        currentTick++;
        // Appends behind any keys left pending by a callback that threw, so those still go first.
        collectDue(wheel[slotOf(currentTick)]);
        fired += fireExpiring(onExpired);
      }
      return fired;
    } finally {
      advancing = false;
    }
  }

  /** Returns the length of one tick in nanoseconds. */
  public long tickNanos() {
    return tickNanos;
  }

  /** Returns the number of slots, that is the number of ticks in one turn of the wheel. */
  public int slotCount() {
    return wheel.length;
  }

  /**
   * Moves the keys of the slot that are due in this turn to {@link #expiring} without calling out,
   * so that keys which callbacks add to this very slot are never mistaken for ones already here.
   */
  private void collectDue(Node<K> slot) {
    Node<K> node = slot.next;
    while (node != slot) {
      Node<K> next = node.next;
      if (node.circle > 0) {
        node.circle--;
      } else {
        node.unlink();
        node.linkBefore(expiring);
      }
      node = next;
    }
  }

  private int fireExpiring(Consumer<? super K> onExpired) {
    int fired = 0;
    // Re-reads the head each time because the callback may remove or move any pending key.
    for (Node<K> node = expiring.next; node != expiring; node = expiring.next) {
      node.unlink();
      index.remove(node.key);
      onExpired.accept(node.key);
      fired++;
    }
    return fired;
  }

  private long firstTickAtOrAfter(long deadlineNanos) {
    long sinceStart = deadlineNanos - startNanos;
    long ticks = sinceStart / tickNanos;
    // Division truncates towards zero, which already rounds negative values up.
    return sinceStart > 0 && sinceStart % tickNanos != 0 ? ticks + 1 : ticks;
  }

  private int slotOf(long tick) {
    return (int) (tick % wheel.length);
  }

  /**
   * An entry of a circular doubly linked list headed by a sentinel, so that a node can leave
   * whichever list holds it in O(1) without knowing which one that is.
   */
  private static final class Node<K> {
    final K key;
    Node<K> prev;
    Node<K> next;

    /** Visits of the node's slot that must pass before the key is due. */
    long circle;

    Node(K key) {
      this.key = key;
    }

    static <K> Node<K> sentinel() {
      Node<K> sentinel = new Node<>(null);
      sentinel.prev = sentinel;
      sentinel.next = sentinel;
      return sentinel;
    }

    /** Appends this node to the list headed by {@code sentinel}. */
    void linkBefore(Node<K> sentinel) {
      prev = sentinel.prev;
      next = sentinel;
      sentinel.prev.next = this;
      sentinel.prev = this;
    }

    void unlink() {
      prev.next = next;
      next.prev = prev;
      prev = null;
      next = null;
    }
  }
}
