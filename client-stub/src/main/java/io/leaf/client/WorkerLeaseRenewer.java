package io.leaf.client;

import io.grpc.Status;
import io.leaf.v1.WorkerLease;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Holds one worker lease for a {@link LocalGenerator}: leases a worker ID from the server, renews
 * it every third of its validity, and leases again when the server says the lease is lost.
 *
 * <p>Each step is one call of {@link #step()}, which returns when to call it next; {@link
 * LocalSnowflakeIds} runs it on a thread of its own, tests call it with fake clocks. Not
 * thread-safe: one thread at a time.
 */
final class WorkerLeaseRenewer {

  /*
   * Each answer hands the generator its fence (measured from when the request was sent, by the
   * monotonic clock), its quarantine (from when the answer arrived), its floor and its ceiling.
   */

  /** The three lease RPCs (the server's SnowflakeService, or a fake). */
  interface Rpcs {
    WorkerLease lease();

    WorkerLease renew(String leaseId, boolean lapsed);

    void release(String leaseId);
  }

  private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final Rpcs rpcs;
  private final LocalGenerator generator;
  private final LongSupplier nanos;
  private String leaseId;
  private int workerId = -1;
  private long validUntilNanos;
  private long renewEveryNanos = RETRY_NANOS;

  WorkerLeaseRenewer(Rpcs rpcs, LocalGenerator generator, LongSupplier nanos) {
    this.rpcs = rpcs;
    this.generator = generator;
    this.nanos = nanos;
  }

  /**
   * Leases or renews as due.
   *
   * @return nanoseconds until the next step
   * @throws LeafException a refusal no retry cures (no permission, no such RPC on the server)
   */
  long step() {
    long sent = nanos.getAsLong();
    try {
      WorkerLease lease;
      if (leaseId == null) {
        lease = rpcs.lease();
      } else {
        lease = rpcs.renew(leaseId, sent - validUntilNanos >= 0);
      }
      apply(lease, sent, nanos.getAsLong());
      return renewEveryNanos;
    } catch (LeafException e) {
      Status.Code code = e.code();
      if (leaseId != null
          && (code == Status.Code.NOT_FOUND || code == Status.Code.FAILED_PRECONDITION)) {
        // Lost (taken, its row changed, or the server forgot it): stop now, lease another.
        generator.revoke(
            "the lease of worker ID "
                + workerId
                + " is lost ("
                + e.description()
                + "); leasing another worker ID");
        leaseId = null;
        return 0;
      }
      if (code == Status.Code.PERMISSION_DENIED
          || code == Status.Code.UNAUTHENTICATED
          || code == Status.Code.UNIMPLEMENTED) {
        generator.revoke("the server refuses worker leases to this client: " + e.getMessage());
        throw e;
      }
      if (leaseId == null) {
        generator.revoke("no worker lease: " + e.getMessage() + "; retrying every second");
      }
      // The fence ends on its own if no renewal gets through in time.
      return Math.min(RETRY_NANOS, renewEveryNanos);
    }
  }

  private void apply(WorkerLease lease, long sentNanos, long receivedNanos) {
    leaseId = lease.getLeaseId();
    workerId = lease.getWorkerId();
    long validFor = TimeUnit.MILLISECONDS.toNanos(lease.getValidForMs());
    validUntilNanos = sentNanos + validFor;
    renewEveryNanos = Math.max(1, validFor / 3);
    generator.grant(
        lease.getWorkerId(),
        new LocalGenerator.Layout(
            lease.getEpochMs(),
            lease.getTimestampBits(),
            lease.getWorkerIdBits(),
            lease.getSequenceBits()),
        lease.getFloorMs(),
        lease.getCeilingMs(),
        receivedNanos + TimeUnit.MILLISECONDS.toNanos(lease.getNotBeforeMs()),
        validUntilNanos);
  }

  /** Stops issuing and gives the worker ID back (best effort: else it ends with its TTL). */
  void release() {
    generator.revoke("LocalSnowflakeIds is closed");
    if (leaseId != null) {
      String id = leaseId;
      leaseId = null;
      try {
        rpcs.release(id);
      } catch (LeafException e) {
        // The lease ends with its TTL; its ceiling stays stored either way.
      }
    }
  }
}
