package io.leaf.server.region;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import io.leaf.client.IdRange;
import io.leaf.client.LeafClient;
import io.leaf.server.testing.Pace;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

/**
 * The callers of one region: threads that take IDs through one {@link LeafClient} (NextId,
 * NextIdBatch and ReserveIds in turn) until stopped, recording every call with the server that
 * answered it, so a test can tell when they moved to another region's server and back.
 *
 * <p>The answering server is known by a {@link #marker} interceptor on each target's channel: a
 * blocking call starts its attempt on the calling thread, and the attempt that started last on that
 * thread is the one whose answer the call returned.
 */
final class RegionCallers {

  /** One call: who made it, the server that answered (-1: it failed), when it ended, its IDs. */
  record Call(int home, int server, long endNanos, long[] ids, String failure) {
    boolean ok() {
      return failure == null;
    }
  }

  private static final ThreadLocal<Integer> ANSWERED = ThreadLocal.withInitial(() -> -1);

  /** Pause between a caller's calls, so that servers and callers share two cores. */
  private static final long PAUSE_MS = 5;

  private final int home;
  private final LeafClient client;
  private final String tag;
  private final ConcurrentLinkedQueue<Call> calls;
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopping;

  RegionCallers(int home, LeafClient client, String tag, ConcurrentLinkedQueue<Call> calls) {
    this.home = home;
    this.client = client;
    this.tag = tag;
    this.calls = calls;
  }

  /** The interceptor that marks calls on the channel of region {@code server}'s server. */
  static ClientInterceptor marker(int server) {
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(
          MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        ANSWERED.set(server);
        return next.newCall(method, options);
      }
    };
  }

  /** Starts {@code count} threads. */
  void start(int count) {
    for (int i = 0; i < count; i++) {
      Thread t = new Thread(this::run, "region-" + home + "-caller-" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  private void run() {
    for (int round = 0; !stopping; round++) {
      ANSWERED.set(-1);
      try {
        long[] ids =
            switch (round % 3) {
              case 0 -> new long[] {client.nextId(tag)};
              case 1 -> client.nextIds(tag, 20);
              default -> flatten(client.reserveIds(tag, 100));
            };
        calls.add(new Call(home, ANSWERED.get(), System.nanoTime(), ids, null));
      } catch (RuntimeException e) {
        calls.add(new Call(home, -1, System.nanoTime(), new long[0], e.toString()));
      }
      try {
        Pace.holdMillis(PAUSE_MS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static long[] flatten(List<IdRange> ranges) {
    long[] ids = new long[(int) ranges.stream().mapToLong(IdRange::size).sum()];
    int n = 0;
    for (IdRange r : ranges) {
      for (long id = r.start(); id < r.end(); id++) {
        ids[n++] = id;
      }
    }
    return ids;
  }

  /** Stops the threads and waits for their last calls (each bounded by the client's deadline). */
  void stop() throws InterruptedException {
    stopping = true;
    for (Thread t : threads) {
      t.join(30_000);
    }
  }

  /** The first call of {@code calls} matching {@code which} that ended after {@code since}. */
  static Call firstAfter(Iterable<Call> calls, long since, Predicate<Call> which) {
    Call first = null;
    for (Call c : calls) {
      if (c.endNanos - since > 0
          && which.test(c)
          && (first == null || c.endNanos - first.endNanos < 0)) {
        first = c;
      }
    }
    return first;
  }

  /** How many of {@code calls} match {@code which} and ended within {@code [from, to)}. */
  static long count(Iterable<Call> calls, long from, long to, Predicate<Call> which) {
    long n = 0;
    for (Call c : calls) {
      if (c.endNanos - from >= 0 && c.endNanos - to < 0 && which.test(c)) {
        n++;
      }
    }
    return n;
  }

  /** Whether every ID of {@code c} satisfies {@code inShare}. */
  static boolean allIn(Call c, LongPredicate inShare) {
    for (long id : c.ids) {
      if (!inShare.test(id)) {
        return false;
      }
    }
    return true;
  }
}
