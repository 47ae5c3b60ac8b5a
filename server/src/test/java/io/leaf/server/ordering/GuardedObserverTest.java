package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.leaf.server.testing.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An owner's answer leaves only while its term may issue; one taken too late is dropped. */
class GuardedObserverTest {

  private static final long TTL = Duration.ofSeconds(10).toNanos();

  /** Records what reaches the caller. */
  private static final class Recorder extends ServerCallStreamObserver<Long> {
    final List<Object> events = new ArrayList<>();

    @Override
    public void onNext(Long v) {
      events.add(v);
    }

    @Override
    public void onError(Throwable t) {
      events.add(Status.fromThrowable(t).getCode());
    }

    @Override
    public void onCompleted() {
      events.add("completed");
    }

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public void setOnCancelHandler(Runnable r) {}

    @Override
    public void setCompression(String c) {}

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void setOnReadyHandler(Runnable r) {}

    @Override
    public void disableAutoInboundFlowControl() {}

    @Override
    public void request(int n) {}

    @Override
    public void setMessageCompression(boolean e) {}
  }

  @Test
  void onNext_fenceLapsedWhileLoading_answerDroppedCallUnavailable() {
    FakeTicker ticker = new FakeTicker();
    TagOwnership own = new TagOwnership(TTL);
    own.acquired(1, ticker.read(), ticker.read());
    long term = own.issuingTerm(() -> {});
    ticker.advance(Duration.ofNanos(TTL)); // waited out, but no renewal: the fence lapsed
    Recorder out = new Recorder();
    GuardedObserver<Long> guarded = new GuardedObserver<>(out, Route.issue(own, term), ticker, "t");
    guarded.onNext(42L);
    guarded.onCompleted();
    assertEquals(List.of(Status.Code.UNAVAILABLE), out.events, "no ID after the fence");
  }

  @Test
  void onNext_withinFence_answerLeaves() {
    FakeTicker ticker = new FakeTicker();
    TagOwnership own = new TagOwnership(TTL);
    own.acquired(1, ticker.read(), ticker.read());
    ticker.advance(Duration.ofNanos(TTL / 2));
    own.renewed(1, ticker.read(), ticker.read());
    ticker.advance(Duration.ofNanos(TTL / 2));
    // Terms are numbered across the server's tags: the call belongs to the one running now.
    long term = own.issuingTerm(() -> {});
    Recorder out = new Recorder();
    GuardedObserver<Long> guarded = new GuardedObserver<>(out, Route.issue(own, term), ticker, "t");
    guarded.onNext(42L);
    guarded.onCompleted();
    assertEquals(List.of(42L, "completed"), out.events, "issued within the fence");
  }

  @Test
  void onNext_newTermSinceTheCallBegan_answerDropped() {
    FakeTicker ticker = new FakeTicker();
    TagOwnership own = new TagOwnership(TTL);
    own.acquired(1, ticker.read(), ticker.read());
    long first = own.issuingTerm(() -> {});
    own.acquired(2, ticker.read(), ticker.read()); // a later term: the old one's segments go
    Recorder out = new Recorder();
    new GuardedObserver<>(out, Route.issue(own, first), ticker, "t").onNext(42L);
    assertEquals(List.of(Status.Code.UNAVAILABLE), out.events, "an earlier term's ID dropped");
  }
}
