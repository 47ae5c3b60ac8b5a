package io.leaf.server.grpc;

import io.grpc.Deadline;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.leaf.server.formats.FormattedIssuer;
import io.leaf.server.formats.ParsedId;
import io.leaf.server.request.InvalidArgumentException;
import io.leaf.server.request.StatusMapping;
import io.leaf.server.request.Validation;
import io.leaf.server.security.CallerRights;
import io.leaf.v1.FormattedId;
import io.leaf.v1.FormattedIdBatch;
import io.leaf.v1.FormattedIdParts;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ParseFormattedIdRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The formatted-number RPCs (NextFormattedId, NextFormattedIdBatch, ParseFormattedId): validated
 * like their plain counterparts, answered from {@link FormattedIssuer}, with NextIdBatch's limits
 * and flow control for the stream. {@link LeafGrpcService} hands them here.
 *
 * <p>Threading: as {@link LeafGrpcService}: nothing blocks; answers come inline, from the database
 * threads or from the engine's loads.
 */
final class FormattedCalls {

  /** Largest value a chunk's memory is first counted for: the longest pattern and its digits. */
  private static final int LONGEST_VALUE = 300;

  private final LeafGrpcService service;
  private final FormattedIssuer issuer;

  FormattedCalls(LeafGrpcService service, FormattedIssuer issuer) {
    this.service = service;
    this.issuer = issuer;
  }

  void next(NextIdRequest req, StreamObserver<FormattedId> out) {
    CompletableFuture<String> next;
    try {
      next =
          issuer.next(
              Validation.bizTag(req.getBizTag()),
              service.waitDeadline(LeafGrpcService.callDeadline()));
    } catch (RuntimeException e) {
      out.onError(StatusMapping.toStatus(e));
      return;
    }
    LeafGrpcService.answer(out, next, v -> FormattedId.newBuilder().setValue(v).build());
  }

  void nextBatch(NextIdBatchRequest req, StreamObserver<FormattedIdBatch> out) {
    String tag;
    int count;
    int chunk;
    try {
      tag = Validation.bizTag(req.getBizTag());
      count = Validation.count(req.getCount(), service.maxBatch());
      chunk = Validation.chunkSize(req.getChunkSize());
    } catch (RuntimeException e) {
      out.onError(StatusMapping.toStatus(e));
      return;
    }
    if (!service.openStream(out, "NextFormattedIdBatch")) {
      return;
    }
    Deadline deadline = LeafGrpcService.callDeadline();
    new BatchStream<>(
            (ServerCallStreamObserver<FormattedIdBatch>) out,
            tag,
            n -> issuer.next(tag, n, service.waitDeadline(deadline)),
            new Values(),
            new BatchStream.Size(count, chunk),
            new BatchStream.Slot(service::streamEnded, service.pump(), service.streamMemory()))
        .start();
  }

  void parse(ParseFormattedIdRequest req, StreamObserver<FormattedIdParts> out) {
    CompletableFuture<ParsedId> parsed;
    try {
      String tag = Validation.bizTag(req.getBizTag());
      if (req.getValue().isEmpty()) {
        throw new InvalidArgumentException("value must not be empty");
      }
      parsed = issuer.parse(tag, req.getValue(), CallerRights.mayRevealOpaque());
    } catch (RuntimeException e) {
      out.onError(StatusMapping.toStatus(e));
      return;
    }
    LeafGrpcService.answer(
        out,
        parsed,
        p ->
            FormattedIdParts.newBuilder()
                .setPeriod(p.periodKey())
                .setSequence(p.sequence().orElse(-1))
                .setCheckValid(p.checkValid())
                .build());
  }

  /**
   * Chunks of values as {@link FormattedIdBatch}: an item's memory is counted for the longest value
   * until the first chunk shows the tag's (every value of a format has one length).
   */
  private static final class Values
      implements BatchStream.Encoding<List<String>, FormattedIdBatch> {

    /** Confined to the stream's sequential executor, like the stream's own state. */
    private int units = unitsFor(LONGEST_VALUE);

    @Override
    public FormattedIdBatch message(List<String> values) {
      if (!values.isEmpty()) {
        units = unitsFor(values.get(0).length());
      }
      return FormattedIdBatch.newBuilder().addAllValues(values).build();
    }

    @Override
    public int items(List<String> values) {
      return values.size();
    }

    @Override
    public int unitsPerItem() {
      return units;
    }

    /** A String's header and UTF-16 chars, and up to 3 bytes per char on the wire. */
    private static int unitsFor(int chars) {
      int bytes = 48 + 5 * chars;
      return (bytes + StreamMemory.BYTES_PER_ID - 1) / StreamMemory.BYTES_PER_ID;
    }
  }
}
