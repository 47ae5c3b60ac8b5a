package io.leaf.client;

import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.DecodeScatteredIdRequest;
import io.leaf.v1.DecodeSnowflakeIdRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.GetWorkerRequest;
import io.leaf.v1.InitCacheRequest;
import io.leaf.v1.IssuedRange;
import io.leaf.v1.LeaseWorkerRequest;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextSequenceRequest;
import io.leaf.v1.NextSnowflakeIdBatchRequest;
import io.leaf.v1.NextSnowflakeIdRequest;
import io.leaf.v1.NextUuidRequest;
import io.leaf.v1.ParseFormattedIdRequest;
import io.leaf.v1.ReleaseWorkerRequest;
import io.leaf.v1.RenewWorkerRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.SetFormatRequest;
import io.leaf.v1.SnowflakeIdParts;
import io.leaf.v1.Tag;
import io.leaf.v1.TagStatus;
import io.leaf.v1.UpdateStepRequest;
import io.leaf.v1.Uuid;
import io.leaf.v1.WhoIssuedRequest;
import io.leaf.v1.WorkerLease;
import io.leaf.v1.WorkerStatus;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The RPCs behind {@link LeafClient}'s methods: each builds its request, checks its arguments and
 * makes one call through the {@link Targets}, which add the deadline, the credentials and the
 * failover.
 */
final class LeafRpcs {

  private final Targets targets;

  LeafRpcs(Targets targets) {
    this.targets = targets;
  }

  /** One RPC, moving to the next target when this one is unavailable (a repeat is a gap). */
  private <T> T call(Function<Targets.Attempt, T> rpc) {
    return targets.call(rpc, true);
  }

  /** {@link #call} of an RPC that issues IDs of {@code bizTag}: to its owner first, if known. */
  private <T> T issue(String bizTag, Function<Targets.Attempt, T> rpc) {
    return targets.call(rpc, true, bizTag);
  }

  /**
   * One RPC that writes a tag's definition, always on the first target: on another it would write
   * to another region's database.
   */
  private <T> T callInPlace(Function<Targets.Attempt, T> rpc) {
    return targets.call(rpc, false);
  }

  private static String tag(String bizTag) {
    return Objects.requireNonNull(bizTag, "bizTag");
  }

  long nextId(String bizTag) {
    NextIdRequest req = NextIdRequest.newBuilder().setBizTag(tag(bizTag)).build();
    return issue(req.getBizTag(), a -> a.leaf(req.getBizTag()).nextId(req).getId());
  }

  long nextSequence(String bizTag, String key) {
    NextSequenceRequest req =
        NextSequenceRequest.newBuilder()
            .setBizTag(tag(bizTag))
            .setKey(Objects.requireNonNull(key, "key"))
            .build();
    // Never to a tag's owner, nor teaching one: a sequence's keys may be served by several servers.
    return call(a -> a.sequences(req.getBizTag()).nextSequence(req).getValue());
  }

  long[] nextIds(String bizTag, int count) {
    NextIdBatchRequest req =
        NextIdBatchRequest.newBuilder().setBizTag(tag(bizTag)).setCount(count).build();
    return issue(
        req.getBizTag(), a -> IdStreams.ids(() -> a.leaf(req.getBizTag()).nextIdBatch(req), count));
  }

  long nextSnowflakeId() {
    return call(
        a -> a.snowflake().nextSnowflakeId(NextSnowflakeIdRequest.getDefaultInstance()).getId());
  }

  long[] nextSnowflakeIds(int count) {
    NextSnowflakeIdBatchRequest req =
        NextSnowflakeIdBatchRequest.newBuilder().setCount(count).build();
    return call(a -> IdStreams.ids(() -> a.snowflake().nextSnowflakeIdBatch(req), count));
  }

  SnowflakeIdParts decode(long id) {
    DecodeSnowflakeIdRequest req = DecodeSnowflakeIdRequest.newBuilder().setId(id).build();
    return call(a -> a.snowflake().decodeSnowflakeId(req));
  }

  Uuid nextUuid() {
    return call(a -> a.snowflake().nextUuid(NextUuidRequest.getDefaultInstance()));
  }

  WorkerStatus getWorker() {
    return call(a -> a.snowflake().getWorker(GetWorkerRequest.getDefaultInstance()));
  }

  /** The lease calls go to the first target: a lease lives in the server that granted it. */
  WorkerLease leaseWorker() {
    return callInPlace(a -> a.snowflake().leaseWorker(LeaseWorkerRequest.getDefaultInstance()));
  }

  WorkerLease renewWorker(String leaseId, boolean lapsed) {
    RenewWorkerRequest req =
        RenewWorkerRequest.newBuilder().setLeaseId(leaseId).setLapsed(lapsed).build();
    return callInPlace(a -> a.snowflake().renewWorker(req));
  }

  void releaseWorker(String leaseId) {
    ReleaseWorkerRequest req = ReleaseWorkerRequest.newBuilder().setLeaseId(leaseId).build();
    callInPlace(a -> a.snowflake().releaseWorker(req));
  }

  Tag setFormat(String bizTag, IdFormat format) {
    SetFormatRequest req =
        SetFormatRequest.newBuilder()
            .setBizTag(tag(bizTag))
            .setFormat(Objects.requireNonNull(format, "format").toProto())
            .build();
    return callInPlace(a -> a.leaf(req.getBizTag()).setFormat(req));
  }

  String nextFormattedId(String bizTag) {
    NextIdRequest req = NextIdRequest.newBuilder().setBizTag(tag(bizTag)).build();
    return issue(req.getBizTag(), a -> a.leaf(req.getBizTag()).nextFormattedId(req).getValue());
  }

  List<String> nextFormattedIds(String bizTag, int count) {
    NextIdBatchRequest req =
        NextIdBatchRequest.newBuilder().setBizTag(tag(bizTag)).setCount(count).build();
    return issue(
        req.getBizTag(),
        a -> IdStreams.values(() -> a.leaf(req.getBizTag()).nextFormattedIdBatch(req), count));
  }

  FormattedIdParts parseFormattedId(String bizTag, String value) {
    ParseFormattedIdRequest req =
        ParseFormattedIdRequest.newBuilder()
            .setBizTag(tag(bizTag))
            .setValue(Objects.requireNonNull(value, "value"))
            .build();
    return call(a -> FormattedIdParts.from(a.leaf(req.getBizTag()).parseFormattedId(req)));
  }

  Tag updateStep(String bizTag, int step) {
    UpdateStepRequest req =
        UpdateStepRequest.newBuilder().setBizTag(tag(bizTag)).setStep(step).build();
    return call(a -> a.leaf(req.getBizTag()).updateStep(req));
  }

  TagStatus initCache(String bizTag) {
    InitCacheRequest req = InitCacheRequest.newBuilder().setBizTag(tag(bizTag)).build();
    return call(a -> a.leaf(req.getBizTag()).initCache(req));
  }

  TagStatus getTag(String bizTag) {
    GetTagRequest req = GetTagRequest.newBuilder().setBizTag(tag(bizTag)).build();
    return call(a -> a.leaf(req.getBizTag()).getTag(req));
  }

  IssuedRange whoIssued(String bizTag, long id) {
    WhoIssuedRequest req = WhoIssuedRequest.newBuilder().setBizTag(tag(bizTag)).setId(id).build();
    return call(a -> a.leaf(req.getBizTag()).whoIssued(req));
  }

  long decodeScatteredId(String bizTag, long id) {
    DecodeScatteredIdRequest req =
        DecodeScatteredIdRequest.newBuilder().setBizTag(tag(bizTag)).setId(id).build();
    return call(a -> a.leaf(req.getBizTag()).decodeScatteredId(req).getSequence());
  }

  List<IdRange> reserveIds(String bizTag, int count) {
    ReserveIdsRequest req =
        ReserveIdsRequest.newBuilder().setBizTag(tag(bizTag)).setCount(count).build();
    return call(a -> ReplyRanges.checked(a.leaf(req.getBizTag()).reserveIds(req), count));
  }

  Tag createTag(String bizTag, long maxId, int step, String description, IdFormat format) {
    CreateTagRequest.Builder req =
        CreateTagRequest.newBuilder()
            .setBizTag(tag(bizTag))
            .setMaxId(maxId)
            .setStep(step)
            .setDescription(description == null ? "" : description);
    if (format != null) {
      req.setFormat(format.toProto());
    }
    CreateTagRequest built = req.build();
    return callInPlace(a -> a.leaf(built.getBizTag()).createTag(built));
  }
}
