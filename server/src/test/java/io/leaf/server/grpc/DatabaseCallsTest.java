package io.leaf.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.grpc.Status;
import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.engine.ServerClosingException;
import io.leaf.server.request.StatusMapping;
import io.leaf.server.threads.ServerThreads;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DatabaseCallsTest {

  @Test
  void execute_queueFull_limitExceededNamingFlag() throws Exception {
    DatabaseCalls calls = new DatabaseCalls(ServerThreads.databaseCalls(1, 1), 1);
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try {
      calls.execute(
          () -> {
            running.countDown();
            awaitQuietly(release);
          });
      org.junit.jupiter.api.Assertions.assertTrue(
          running.await(10, TimeUnit.SECONDS), "the one thread is busy");
      calls.execute(() -> {});
      LimitExceededException e =
          assertThrows(LimitExceededException.class, () -> calls.execute(() -> {}));
      assertEquals(Status.Code.RESOURCE_EXHAUSTED, StatusMapping.status(e).getCode());
      assertEquals(DatabaseCalls.QUEUE_FLAG, e.flag());
    } finally {
      release.countDown();
      calls.close();
    }
  }

  @Test
  void execute_afterClose_unavailableNotResourceExhausted() {
    DatabaseCalls calls = new DatabaseCalls(ServerThreads.databaseCalls(1, 1), 1);
    calls.close();
    ServerClosingException e =
        assertThrows(ServerClosingException.class, () -> calls.execute(() -> {}));
    assertEquals(
        Status.Code.UNAVAILABLE,
        StatusMapping.status(e).getCode(),
        "a call arriving during shutdown is told to retry elsewhere");
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
