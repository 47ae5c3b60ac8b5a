package io.leaf.server.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;

/**
 * One call's registration on a tag's pending segment load, settled exactly once: normally when the
 * load ends (the caller tries again), exceptionally when the load failed, the call's deadline
 * passed or the allocator closed.
 *
 * <p>{@link #cancel} drops it: it leaves the load's list and frees its slot.
 *
 * <p>Thread-safe: whichever comes first of the load's end, its deadline timer and a cancel settles
 * it; the others then do nothing.
 */
final class WaitingCall extends CompletableFuture<Void> {

  private static final VarHandle SETTLED;

  static {
    try {
      SETTLED = MethodHandles.lookup().findVarHandle(WaitingCall.class, "settled", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final TagBuffer buffer;
  private final SegmentWaiters owner;

  /** Cancels the deadline task; set right after registration, under the tag's stripe lock. */
  volatile Runnable cancelTimer;

  @SuppressWarnings("unused")
  private volatile boolean settled;

  WaitingCall(SegmentWaiters owner, TagBuffer buffer) {
    this.owner = owner;
    this.buffer = buffer;
  }

  /** True for the one caller that settles this wait; it must then complete it. */
  boolean settle() {
    return SETTLED.compareAndSet(this, false, true);
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    if (!owner.drop(this)) {
      return false;
    }
    return super.cancel(mayInterruptIfRunning);
  }
}
