package io.leaf.server.grpc;

import com.google.common.base.Ticker;
import io.grpc.stub.StreamObserver;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.engine.TagSnapshot;
import io.leaf.server.formats.FormatAdmin;
import io.leaf.server.formats.FormatSpec;
import io.leaf.server.formats.Reset;
import io.leaf.server.formats.StoredFormat;
import io.leaf.server.ledger.IssuedRange;
import io.leaf.server.ledger.Ledger;
import io.leaf.server.ledger.NotIssuedException;
import io.leaf.server.request.InvalidArgumentException;
import io.leaf.server.request.StatusMapping;
import io.leaf.server.request.Validation;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.StoreUnavailableException;
import io.leaf.server.store.TagNotFoundException;
import io.leaf.server.store.TagPage;
import io.leaf.server.store.TagRecord;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.IdFormat;
import io.leaf.v1.ListTagsRequest;
import io.leaf.v1.ListTagsResponse;
import io.leaf.v1.Segment;
import io.leaf.v1.SetFormatRequest;
import io.leaf.v1.Tag;
import io.leaf.v1.TagStatus;
import io.leaf.v1.UpdateStepRequest;
import io.leaf.v1.WhoIssuedRequest;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The RPCs that read or write a tag's row (CreateTag, UpdateStep, GetTag, ListTags, and InitCache's
 * answer once the tag is loaded), each run on {@link DatabaseCalls} and answered within {@link
 * #DATABASE_CALL_TIMEOUT}; {@link LeafGrpcService} hands them here.
 *
 * <p>Thread-safety: stateless beyond its collaborators; called on transport threads, its work runs
 * on the database threads and its answers come from there or from the engine's timer.
 */
public final class TagAdmin {

  /**
   * Longest a call that needs the database waits for it: one connection timeout and a margin, so a
   * client with a 5 s deadline hears UNAVAILABLE, not DEADLINE_EXCEEDED.
   */
  static final Duration DATABASE_CALL_TIMEOUT =
      DataSources.CONNECTION_TIMEOUT.plus(Duration.ofSeconds(1));

  private final SegmentAllocator allocator;
  private final SegmentStore store;
  private final Ledger ledger;
  private final InstantSource clock;
  private final DatabaseCalls database;
  private final FormatAdmin formats;

  /**
   * @param store the tags' rows, {@code ledger} their records (both a region's, with {@code
   *     --region})
   * @param database where the calls that touch the database run
   * @param formats sets and shows the formats
   */
  public TagAdmin(
      SegmentAllocator allocator,
      SegmentStore store,
      Ledger ledger,
      InstantSource clock,
      DatabaseCalls database,
      FormatAdmin formats) {
    this.allocator = allocator;
    this.formats = formats;
    this.store = store;
    this.ledger = ledger;
    this.clock = clock;
    this.database = database;
  }

  void createTag(CreateTagRequest req, StreamObserver<Tag> out) {
    onDatabase(
        out,
        () -> {
          String tag = Validation.newBizTag(req.getBizTag());
          long maxId = Validation.maxId(req.getMaxId());
          int step = Validation.createStep(req.getStep());
          String description = Validation.description(req.getDescription());
          // The format is checked before the row exists, so a refused one creates nothing.
          FormatSpec spec = req.hasFormat() ? check(tag, req.getFormat()) : null;
          TagRecord row =
              store.createTag(tag, maxId, step, description.isEmpty() ? null : description);
          allocator.tagCreated(tag);
          return toProto(row, spec == null ? null : formats.set(tag, spec));
        });
  }

  void updateStep(UpdateStepRequest req, StreamObserver<Tag> out) {
    onDatabase(
        out,
        () -> {
          String tag = Validation.bizTag(req.getBizTag());
          int step = Validation.updateStep(req.getStep());
          TagRecord updated = store.updateStep(tag, step);
          allocator.onStepUpdated(tag, step);
          return toProto(updated, formats.current(tag).orElse(null));
        });
  }

  void setFormat(SetFormatRequest req, StreamObserver<Tag> out) {
    onDatabase(
        out,
        () -> {
          String tag = Validation.bizTag(req.getBizTag());
          if (!req.hasFormat()) {
            throw new InvalidArgumentException("format must be set");
          }
          StoredFormat stored = formats.set(tag, check(tag, req.getFormat()));
          TagRecord row = store.getTag(tag).orElseThrow(() -> new TagNotFoundException(tag));
          return toProto(row, stored);
        });
  }

  private FormatSpec check(String tag, IdFormat f) {
    return formats.check(tag, f.getPattern(), reset(f), f.getTimeZone());
  }

  private static Reset reset(IdFormat f) {
    return switch (f.getReset()) {
      case RESET_UNSPECIFIED, NEVER -> Reset.NEVER;
      case DAILY -> Reset.DAILY;
      case MONTHLY -> Reset.MONTHLY;
      case YEARLY -> Reset.YEARLY;
      case UNRECOGNIZED ->
          throw new InvalidArgumentException(
              "format.reset must be NEVER, DAILY,"
                  + " MONTHLY or YEARLY, got "
                  + f.getResetValue());
    };
  }

  void getTag(GetTagRequest req, StreamObserver<TagStatus> out) {
    onDatabase(out, () -> status(Validation.bizTag(req.getBizTag())));
  }

  /** WhoIssued: the ledger's record for the ID, read on the database threads. */
  void whoIssued(WhoIssuedRequest req, StreamObserver<io.leaf.v1.IssuedRange> out) {
    onDatabase(
        out,
        () -> {
          String tag = Validation.bizTag(req.getBizTag());
          IssuedRange r =
              ledger
                  .whoIssued(tag, req.getId())
                  .orElseThrow(() -> new NotIssuedException(tag, req.getId()));
          return io.leaf.v1.IssuedRange.newBuilder()
              .setStart(r.start())
              .setEnd(r.end())
              .setServer(r.server())
              .setTimeMs(r.timeMs())
              .setKind(r.kind().text())
              .build();
        });
  }

  void listTags(ListTagsRequest req, StreamObserver<ListTagsResponse> out) {
    onDatabase(
        out,
        () -> {
          int pageSize = Validation.pageSize(req.getPageSize());
          String after = PageTokens.decode(req.getPageToken());
          TagPage page = store.listTags(after, pageSize);
          Map<String, StoredFormat> formatted =
              formats.current(page.tags().stream().map(TagRecord::bizTag).toList());
          ListTagsResponse.Builder resp = ListTagsResponse.newBuilder();
          page.tags().forEach(t -> resp.addTags(toProto(t, formatted.get(t.bizTag()))));
          if (page.hasMore()) {
            resp.setNextPageToken(
                PageTokens.encode(page.tags().get(page.tags().size() - 1).bizTag()));
          }
          return resp.build();
        });
  }

  /** InitCache's answer for a validated {@code tag} the engine has loaded: GetTag's status. */
  void loaded(String tag, StreamObserver<TagStatus> out) {
    onDatabase(out, () -> status(tag));
  }

  private TagStatus status(String tag) {
    TagRecord row = store.getTag(tag).orElseThrow(() -> new TagNotFoundException(tag));
    TagStatus.Builder out =
        TagStatus.newBuilder()
            .setTag(toProto(row, formats.current(tag).orElse(null)))
            .setEffectiveStep(row.step());
    allocator
        .snapshot(tag)
        .ifPresent(
            s -> {
              out.setCached(true).setCurrent(toProto(s.current()));
              if (s.next() != null) {
                out.setNext(toProto(s.next()));
              }
              if (s.effectiveStep() > 0) {
                out.setEffectiveStep(s.effectiveStep());
              }
              Ticker ticker = allocator.ticker();
              long agoMillis = TimeUnit.NANOSECONDS.toMillis(ticker.read() - s.lastAccessNanos());
              out.setLastAccessTime(clock.millis() - Math.max(0, agoMillis));
            });
    return out.build();
  }

  /** Runs {@code work} on the database threads and answers with its result or its failure. */
  private <T> void onDatabase(StreamObserver<T> out, Supplier<T> work) {
    RuntimeException down = allocator.databaseKnownDown();
    if (down != null) {
      // Known down: at once, not after a connection timeout that outlasts the caller's deadline.
      out.onError(StatusMapping.toStatus(down));
      return;
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    // A database that stopped answering makes a connection attempt, a validation and a rollback
    // each wait out their own timeout: the caller is answered within one bound instead.
    Runnable cancelTimer =
        allocator.schedule(
            () ->
                result.completeExceptionally(
                    new StoreUnavailableException(
                        "database unavailable: no answer within "
                            + DATABASE_CALL_TIMEOUT.toMillis()
                            + " ms (the call may still complete)",
                        null)),
            DATABASE_CALL_TIMEOUT.toNanos());
    result.whenComplete((v, e) -> cancelTimer.run());
    try {
      database.execute(
          () -> {
            if (result.isDone()) {
              return; // cancelled or timed out while queued: no database work
            }
            try {
              result.complete(work.get());
            } catch (RuntimeException e) {
              result.completeExceptionally(e);
            }
          });
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
    }
    // Not a cancel handler: InitCache comes here from a continuation, after its handler set the
    // one cancel handler a call may have.
    result.whenComplete(
        (v, e) -> {
          if (e == null) {
            out.onNext(v);
            out.onCompleted();
          } else {
            out.onError(StatusMapping.toStatus(e));
          }
        });
  }

  /**
   * @param format the tag's current format; null when it has none
   */
  private static Tag toProto(TagRecord r, StoredFormat format) {
    Tag.Builder t =
        Tag.newBuilder()
            .setBizTag(r.bizTag())
            .setMaxId(r.maxId())
            .setStep(r.step())
            .setUpdateTime(r.updateTime());
    if (r.description() != null) {
      t.setDescription(r.description());
    }
    if (format != null) {
      t.setFormat(
          IdFormat.newBuilder()
              .setPattern(format.pattern())
              .setReset(io.leaf.v1.Reset.valueOf(format.reset()))
              .setTimeZone(format.timeZone()));
      t.setFormatKeyFingerprint(format.keyFingerprint());
    }
    return t.build();
  }

  private static Segment toProto(TagSnapshot.SegmentView s) {
    return Segment.newBuilder().setStart(s.start()).setEnd(s.end()).setCursor(s.cursor()).build();
  }
}
