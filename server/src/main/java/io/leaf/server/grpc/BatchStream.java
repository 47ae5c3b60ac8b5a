package io.leaf.server.grpc;

import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.stub.ServerCallStreamObserver;
import io.leaf.server.engine.IdRanges;
import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.engine.ServerClosingException;
import io.leaf.server.request.StatusMapping;
import io.leaf.v1.IdBatch;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One streaming batch call (NextIdBatch, NextFormattedIdBatch, NextSnowflakeIdBatch,
 * NextUuidBatch), sent chunk by chunk as the transport becomes ready: a reader that does not read
 * holds at most the one chunk in flight.
 *
 * <p>IDs are taken only for a chunk about to be sent. When the source has none at once (a tag ran
 * dry, a snowflake sequence is used up) the stream waits on the source's future without a thread
 * and resumes from its completion.
 *
 * <p>Threading: the events (the transport's onReady and cancel on a transport thread, the end of a
 * wait on a loader or timer thread) only enqueue; the work (taking IDs, building and sending
 * chunks) runs on the shared stream pump, one task at a time per stream through a sequential
 * executor. So the stream's state and its {@code onNext}/{@code onCompleted}/{@code onError} calls
 * are never concurrent, and bulk encoding never occupies a transport thread that unary calls need,
 * nor a loader thread that the next load needs. At most one drain per stream is queued (onReady
 * notifications coalesce), so the pump's queue is bounded by the number of open streams.
 *
 * <p>Memory: each chunk's IDs are first granted by the server-wide {@link StreamMemory} and given
 * back once the call is ready again (the transport took the chunk) or the stream ends, however it
 * ends — an {@link Error} thrown by its work included, which also frees its stream slot.
 */
final class BatchStream<C, M> {

  private static final Logger log = LoggerFactory.getLogger(BatchStream.class);

  /** Where a stream's chunks come from: up to {@code count} items, at once or later. */
  interface Source<C> {
    CompletableFuture<C> next(int count);
  }

  /** How a stream's chunks are sent: as messages, each holding so many items. */
  interface Encoding<C, M> {
    M message(C chunk);

    int items(C chunk);

    /**
     * Units of {@link StreamMemory} (each {@link StreamMemory#BYTES_PER_ID} bytes) an item in
     * flight may cost: 1 for an ID.
     */
    int unitsPerItem();
  }

  /** Chunks of IDs as {@link IdBatch} messages. */
  static final Encoding<IdRanges, IdBatch> IDS =
      new Encoding<>() {
        @Override
        public IdBatch message(IdRanges ids) {
          IdBatch.Builder batch = IdBatch.newBuilder();
          ids.forEach(batch::addIds);
          return batch.build();
        }

        @Override
        public int items(IdRanges ids) {
          return (int) ids.size();
        }

        @Override
        public int unitsPerItem() {
          return 1;
        }
      };

  private final ServerCallStreamObserver<M> call;
  private final String what;
  private final Source<C> source;
  private final Encoding<C, M> encoding;
  private final int chunk;
  private final Runnable onEnd;
  private final Executor events;
  private final StreamMemory memory;
  private final AtomicBoolean drainQueued = new AtomicBoolean();

  /** IDs of memory granted for the chunk being taken or in flight; confined to events. */
  private int held;

  /** Receives the grant this stream waits for; null when it waits for none. */
  private IntConsumer memoryWait;

  // Confined to events.
  private int remaining;

  /** The chunk whose IDs the engine is waiting for; null when none. */
  private CompletableFuture<C> wait;

  private boolean ended;

  /** How many IDs a stream sends in all ({@code count}) and at most per message ({@code chunk}). */
  record Size(int count, int chunk) {}

  /**
   * The shared means a stream runs on: {@code onEnd} runs once when it ends, however it ends;
   * {@code pump} is the threads that run every stream's work; {@code memory} bounds the messages
   * held.
   */
  record Slot(Runnable onEnd, Executor pump, StreamMemory memory) {}

  /**
   * @param what names the stream in the log, e.g. the tag
   * @param source the IDs of each chunk
   * @param size the IDs in all and per message
   * @param slot what runs at the end, the pump and the memory budget
   */
  BatchStream(
      ServerCallStreamObserver<M> call,
      String what,
      Source<C> source,
      Encoding<C, M> encoding,
      Size size,
      Slot slot) {
    this.call = call;
    this.what = what;
    this.source = source;
    this.encoding = encoding;
    this.memory = slot.memory();
    this.remaining = size.count();
    this.chunk = size.chunk();
    this.onEnd = slot.onEnd();
    this.events = MoreExecutors.newSequentialExecutor(slot.pump());
  }

  /** Hooks the stream to its call; must run inside the call's handler. */
  void start() {
    // With a cancel handler set, a late onNext after a cancel is dropped instead of throwing.
    call.setOnCancelHandler(() -> run(this::cancelled));
    // gRPC runs this once the call is ready and again whenever the client drains its window.
    call.setOnReadyHandler(
        () -> {
          if (drainQueued.compareAndSet(false, true)) {
            run(
                () -> {
                  drainQueued.set(false);
                  drain();
                });
          }
        });
  }

  private void run(Runnable event) {
    try {
      events.execute(
          () -> {
            try {
              event.run();
            } catch (Throwable e) {
              // An Error (out of memory included) ends this stream too, so its slot is freed.
              fail(e);
            }
          });
    } catch (RejectedExecutionException e) {
      // The pump refused: it runs nothing of this stream now, so ending the call from here
      // cannot overlap a task of it. Its queue holds one task per open stream and twice
      // --max-streams, so only a pump that is shutting down refuses.
      fail(new ServerClosingException());
    }
  }

  private void drain() {
    if (ended || wait != null || memoryWait != null) {
      return;
    }
    try {
      while (remaining > 0 && call.isReady()) {
        // Ready again: the chunk sent before has left for the transport.
        giveBack();
        IntConsumer later = grant -> run(() -> granted(grant));
        int grant = memory.acquire(Math.min(chunk, remaining) * encoding.unitsPerItem(), later);
        if (grant == 0) {
          memoryWait = later;
          return;
        }
        if (!take(grant)) {
          return;
        }
      }
      if (remaining == 0) {
        end();
        call.onCompleted();
      }
    } catch (RuntimeException e) {
      fail(e);
    }
  }

  /** Memory another stream gave back, handed to this one while it waited. */
  private void granted(int grant) {
    memoryWait = null;
    if (ended) {
      memory.release(grant);
      return;
    }
    if (grant == 0) {
      fail(
          new LimitExceededException(
              "no memory for the chunks of another batch stream within"
                  + " --max-wait: the chunks of all open streams hold the whole budget ("
                  + memory.capacityIds()
                  + " IDs at "
                  + StreamMemory.BYTES_PER_ID
                  + " bytes each)",
              memory.capacityBytes() + " bytes",
              StreamMemory.FLAG));
      return;
    }
    if (take(grant)) {
      drain();
    }
  }

  /**
   * Takes a chunk of {@code grant} IDs and sends it: true when sent inline, false when the engine's
   * wait resumes the stream later.
   */
  private boolean take(int grant) {
    held = grant;
    // Inline while the source has IDs (buffered segments), else resumed when it has.
    CompletableFuture<C> ids = source.next(Math.max(1, grant / encoding.unitsPerItem()));
    if (!ids.isDone()) {
      wait = ids;
      ids.whenComplete((r, e) -> run(() -> resumed(r, e)));
      return false;
    }
    send(ids.join());
    return true;
  }

  private void giveBack() {
    int ids = held;
    held = 0;
    memory.release(ids);
  }

  /** One chunk; the call was ready when its IDs were asked for, so it holds at most this one. */
  private void send(C chunk) {
    remaining -= encoding.items(chunk);
    call.onNext(encoding.message(chunk));
  }

  private void resumed(C ids, Throwable failure) {
    wait = null;
    if (failure != null) {
      fail(failure);
    } else if (!ended) {
      send(ids);
      drain();
    }
  }

  /** IDs taken for a chunk that was not sent are a gap. */
  private void cancelled() {
    if (ended) {
      return;
    }
    end();
    CompletableFuture<C> w = wait;
    if (w != null) {
      w.cancel(false);
    }
  }

  private void fail(Throwable e) {
    if (ended) {
      log.debug("batch stream of {} failed after it ended", what, e);
      return;
    }
    end();
    call.onError(StatusMapping.toStatus(e));
  }

  private void end() {
    ended = true;
    try {
      IntConsumer later = memoryWait;
      memoryWait = null;
      // A grant already on its way is given back by granted(), which sees the stream ended.
      if (later != null) {
        memory.cancel(later);
      }
      giveBack();
    } finally {
      onEnd.run();
    }
  }
}
