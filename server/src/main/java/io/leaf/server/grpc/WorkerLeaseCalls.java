package io.leaf.server.grpc;

import io.grpc.stub.StreamObserver;
import io.leaf.server.request.InvalidArgumentException;
import io.leaf.server.request.StatusMapping;
import io.leaf.server.snowflake.ClientLeases;
import io.leaf.server.snowflake.SnowflakeLayout;
import io.leaf.v1.ClientWorker;
import io.leaf.v1.LeaseWorkerRequest;
import io.leaf.v1.ReleaseWorkerRequest;
import io.leaf.v1.ReleaseWorkerResponse;
import io.leaf.v1.RenewWorkerRequest;
import io.leaf.v1.WorkerLease;
import io.leaf.v1.WorkerStatus;
import java.util.function.Supplier;

/**
 * The worker-lease RPCs of SnowflakeService (LeaseWorker, RenewWorker, ReleaseWorker): each is a
 * few statements on the lease table, so it runs on the {@link DatabaseCalls} threads and their
 * bounded queue, never on a transport thread.
 */
final class WorkerLeaseCalls {

  /** A lease ID is a UUID; anything much longer is not one (and is not held in memory). */
  private static final int MAX_LEASE_ID = 64;

  private final ClientLeases leases;
  private final DatabaseCalls database;

  WorkerLeaseCalls(ClientLeases leases, DatabaseCalls database) {
    this.leases = leases;
    this.database = database;
  }

  void leaseWorker(LeaseWorkerRequest req, StreamObserver<WorkerLease> out) {
    run(out, () -> toProto(leases.lease()));
  }

  void renewWorker(RenewWorkerRequest req, StreamObserver<WorkerLease> out) {
    String id = req.getLeaseId();
    run(out, () -> toProto(leases.renew(checked(id), req.getLapsed())));
  }

  void releaseWorker(ReleaseWorkerRequest req, StreamObserver<ReleaseWorkerResponse> out) {
    String id = req.getLeaseId();
    run(
        out,
        () -> {
          leases.release(checked(id));
          return ReleaseWorkerResponse.getDefaultInstance();
        });
  }

  /** The client-held workers, for GetWorker. */
  void list(WorkerStatus.Builder status) {
    for (ClientLeases.Listed l : leases.held()) {
      status.addClientWorkers(
          ClientWorker.newBuilder()
              .setWorkerId(l.workerId())
              .setLeaseExpiresMs(l.expiresMs())
              .setCeilingMs(l.ceilingMs()));
    }
  }

  private static String checked(String leaseId) {
    if (leaseId.isEmpty() || leaseId.length() > MAX_LEASE_ID) {
      throw new InvalidArgumentException(
          "lease_id must be the lease_id LeaseWorker returned, got "
              + (leaseId.isEmpty() ? "none" : leaseId.length() + " characters"));
    }
    return leaseId;
  }

  private <T> void run(StreamObserver<T> out, Supplier<T> call) {
    try {
      database.execute(
          () -> {
            T answer;
            try {
              answer = call.get();
            } catch (RuntimeException e) {
              out.onError(StatusMapping.toStatus(e));
              return;
            }
            out.onNext(answer);
            out.onCompleted();
          });
    } catch (RuntimeException e) {
      out.onError(StatusMapping.toStatus(e));
    }
  }

  private static WorkerLease toProto(ClientLeases.Granted g) {
    SnowflakeLayout layout = g.layout();
    return WorkerLease.newBuilder()
        .setWorkerId(g.workerId())
        .setLeaseId(g.leaseId())
        .setValidForMs(g.validForMs())
        .setNotBeforeMs(g.notBeforeMs())
        .setFloorMs(g.timestamps().floorMs())
        .setCeilingMs(g.timestamps().ceilingMs())
        .setEpochMs(layout.epochMs())
        .setTimestampBits(layout.timestampBits())
        .setWorkerIdBits(layout.workerIdBits())
        .setSequenceBits(layout.sequenceBits())
        .build();
  }
}
