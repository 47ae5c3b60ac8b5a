package io.leaf.server.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.leaf.server.request.InvalidArgumentException;
import io.leaf.server.request.StatusMapping;
import io.leaf.server.request.Validation;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.snowflake.SnowflakeGenerator;
import io.leaf.server.snowflake.SnowflakeLayout;
import io.leaf.server.uuid.Uuids;
import io.leaf.v1.DecodeSnowflakeIdRequest;
import io.leaf.v1.DecodeUuidRequest;
import io.leaf.v1.GetWorkerRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.LeaseWorkerRequest;
import io.leaf.v1.NextIdResponse;
import io.leaf.v1.NextSnowflakeIdBatchRequest;
import io.leaf.v1.NextSnowflakeIdRequest;
import io.leaf.v1.NextUuidBatchRequest;
import io.leaf.v1.NextUuidRequest;
import io.leaf.v1.ReleaseWorkerRequest;
import io.leaf.v1.ReleaseWorkerResponse;
import io.leaf.v1.RenewWorkerRequest;
import io.leaf.v1.SnowflakeIdParts;
import io.leaf.v1.SnowflakeServiceGrpc;
import io.leaf.v1.Uuid;
import io.leaf.v1.UuidBatch;
import io.leaf.v1.UuidParts;
import io.leaf.v1.WorkerLease;
import io.leaf.v1.WorkerStatus;
import java.security.SecureRandom;

/**
 * The gRPC face of snowflake IDs: every RPC answers inline on the transport's thread (an ID is a
 * lock and two clock reads), except NextSnowflakeIdBatch, which streams.
 *
 * <p>The stream goes through the same {@link BatchStream}, limits ({@code --max-batch}, {@code
 * chunk_size}) and {@code --max-streams} slots as NextIdBatch; the UUID RPCs are {@link
 * UuidCalls}', the worker-lease RPCs {@link WorkerLeaseCalls}'.
 */
public final class SnowflakeGrpcService extends SnowflakeServiceGrpc.SnowflakeServiceImplBase {

  private final Snowflake snowflake;
  private final LeafGrpcService streams;
  private final UuidCalls uuids;
  private final WorkerLeaseCalls workerLeases;

  /**
   * @param streams the segment service whose stream slots, pump and limits batches share
   */
  public SnowflakeGrpcService(Snowflake snowflake, LeafGrpcService streams) {
    this.snowflake = snowflake;
    this.streams = streams;
    this.uuids = new UuidCalls(new Uuids(snowflake, new SecureRandom()), streams);
    this.workerLeases = new WorkerLeaseCalls(snowflake.clientLeases(), streams.database());
  }

  @Override
  public void leaseWorker(LeaseWorkerRequest req, StreamObserver<WorkerLease> out) {
    workerLeases.leaseWorker(req, out);
  }

  @Override
  public void renewWorker(RenewWorkerRequest req, StreamObserver<WorkerLease> out) {
    workerLeases.renewWorker(req, out);
  }

  @Override
  public void releaseWorker(ReleaseWorkerRequest req, StreamObserver<ReleaseWorkerResponse> out) {
    workerLeases.releaseWorker(req, out);
  }

  @Override
  public void nextUuid(NextUuidRequest req, StreamObserver<Uuid> out) {
    uuids.nextUuid(out);
  }

  @Override
  public void nextUuidBatch(NextUuidBatchRequest req, StreamObserver<UuidBatch> out) {
    uuids.nextUuidBatch(req, out);
  }

  @Override
  public void decodeUuid(DecodeUuidRequest req, StreamObserver<UuidParts> out) {
    uuids.decodeUuid(req, out);
  }

  @Override
  public void nextSnowflakeId(NextSnowflakeIdRequest req, StreamObserver<NextIdResponse> out) {
    long id;
    try {
      id = snowflake.nextId();
    } catch (RuntimeException e) {
      out.onError(StatusMapping.toStatus(e));
      return;
    }
    out.onNext(NextIdResponse.newBuilder().setId(id).build());
    out.onCompleted();
  }

  @Override
  public void nextSnowflakeIdBatch(NextSnowflakeIdBatchRequest req, StreamObserver<IdBatch> out) {
    int count;
    int chunk;
    try {
      count = Validation.count(req.getCount(), streams.maxBatch());
      chunk = Validation.chunkSize(req.getChunkSize());
    } catch (RuntimeException e) {
      out.onError(StatusMapping.toStatus(e));
      return;
    }
    if (!streams.openStream(out, "NextIdBatch and NextSnowflakeIdBatch")) {
      return;
    }
    new BatchStream<>(
            (ServerCallStreamObserver<IdBatch>) out,
            "snowflake IDs",
            snowflake::nextIds,
            BatchStream.IDS,
            new BatchStream.Size(count, chunk),
            new BatchStream.Slot(streams::streamEnded, streams.pump(), streams.streamMemory()))
        .start();
  }

  @Override
  public void decodeSnowflakeId(
      DecodeSnowflakeIdRequest req, StreamObserver<SnowflakeIdParts> out) {
    SnowflakeLayout.Parts parts;
    try {
      parts = snowflake.layout().decompose(req.getId());
    } catch (IllegalArgumentException e) {
      // Negative, or above the layout's bits (a layout of fewer than 63).
      out.onError(StatusMapping.toStatus(new InvalidArgumentException(e.getMessage())));
      return;
    }
    out.onNext(
        SnowflakeIdParts.newBuilder()
            .setId(parts.id())
            .setTimestampMs(parts.timestampMs())
            .setWorkerId(parts.workerId())
            .setSequence(parts.sequence())
            .build());
    out.onCompleted();
  }

  @Override
  public void getWorker(GetWorkerRequest req, StreamObserver<WorkerStatus> out) {
    SnowflakeGenerator g = snowflake.generator();
    SnowflakeLayout layout = snowflake.layout();
    WorkerStatus.Builder status =
        WorkerStatus.newBuilder()
            .setWorkerId(g.leaseValid() ? g.workerId() : -1)
            .setLeaseExpiresMs(g.leaseExpiresMs())
            .setEpochMs(layout.epochMs())
            .setTimestampBits(layout.timestampBits())
            .setWorkerIdBits(layout.workerIdBits())
            .setSequenceBits(layout.sequenceBits())
            .setLastTimestampMs(g.lastTimestampMs())
            .setAheadOfWallClockMs(g.aheadOfWallMs())
            .setEndYear(layout.endYear())
            .setIdsIssued(g.issued());
    workerLeases.list(status);
    out.onNext(status.build());
    out.onCompleted();
  }
}
