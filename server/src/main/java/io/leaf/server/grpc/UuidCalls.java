package io.leaf.server.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.leaf.server.request.InvalidArgumentException;
import io.leaf.server.request.StatusMapping;
import io.leaf.server.request.Validation;
import io.leaf.server.uuid.Ulid;
import io.leaf.server.uuid.UuidLayout;
import io.leaf.server.uuid.Uuids;
import io.leaf.v1.DecodeUuidRequest;
import io.leaf.v1.NextUuidBatchRequest;
import io.leaf.v1.Uuid;
import io.leaf.v1.UuidBatch;
import io.leaf.v1.UuidParts;
import java.util.List;
import java.util.UUID;

/**
 * The UUID RPCs of SnowflakeService: NextUuid and DecodeUuid answer inline; NextUuidBatch streams
 * through the same {@link BatchStream}, limits and {@code --max-streams} slots as
 * NextSnowflakeIdBatch.
 */
final class UuidCalls {

  /** A canonical UUID: 36 characters. */
  private static final int CHARS = 36;

  private final Uuids uuids;
  private final LeafGrpcService streams;

  UuidCalls(Uuids uuids, LeafGrpcService streams) {
    this.uuids = uuids;
    this.streams = streams;
  }

  void nextUuid(StreamObserver<Uuid> out) {
    UUID uuid;
    try {
      uuid = uuids.next();
    } catch (RuntimeException e) {
      out.onError(StatusMapping.toStatus(e));
      return;
    }
    out.onNext(Uuid.newBuilder().setValue(uuid.toString()).setUlid(Ulid.encode(uuid)).build());
    out.onCompleted();
  }

  void nextUuidBatch(NextUuidBatchRequest req, StreamObserver<UuidBatch> out) {
    int count;
    int chunk;
    try {
      count = Validation.count(req.getCount(), streams.maxBatch());
      chunk = Validation.chunkSize(req.getChunkSize());
    } catch (RuntimeException e) {
      out.onError(StatusMapping.toStatus(e));
      return;
    }
    if (!streams.openStream(out, "NextIdBatch, NextSnowflakeIdBatch and NextUuidBatch")) {
      return;
    }
    new BatchStream<>(
            (ServerCallStreamObserver<UuidBatch>) out,
            "UUIDs",
            uuids::next,
            VALUES,
            new BatchStream.Size(count, chunk),
            new BatchStream.Slot(streams::streamEnded, streams.pump(), streams.streamMemory()))
        .start();
  }

  void decodeUuid(DecodeUuidRequest req, StreamObserver<UuidParts> out) {
    UuidLayout.Parts parts;
    try {
      parts = uuids.decode(req.getValue());
    } catch (IllegalArgumentException e) {
      out.onError(StatusMapping.toStatus(new InvalidArgumentException(e.getMessage())));
      return;
    }
    out.onNext(
        UuidParts.newBuilder()
            .setTimestampMs(parts.timestampMs())
            .setWorkerId(parts.workerId())
            .build());
    out.onCompleted();
  }

  /** Chunks of UUIDs as {@link UuidBatch}: a 36-character string's memory per item. */
  private static final BatchStream.Encoding<List<UUID>, UuidBatch> VALUES =
      new BatchStream.Encoding<>() {
        @Override
        public UuidBatch message(List<UUID> chunk) {
          UuidBatch.Builder batch = UuidBatch.newBuilder();
          for (UUID uuid : chunk) {
            batch.addValues(uuid.toString());
          }
          return batch.build();
        }

        @Override
        public int items(List<UUID> chunk) {
          return chunk.size();
        }

        @Override
        public int unitsPerItem() {
          // A String's header and chars, and the bytes on the wire (as FormattedCalls counts).
          int bytes = 48 + 5 * CHARS;
          return (bytes + StreamMemory.BYTES_PER_ID - 1) / StreamMemory.BYTES_PER_ID;
        }
      };
}
