package io.leaf.server.testing;

import io.leaf.server.engine.DeadlineTimer;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.engine.EngineThreads;
import io.leaf.server.threads.ServerThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * The engine's threads for a test, made as the server makes them ({@link
 * ServerThreads#engineThreads}); {@link #close()} shuts them down, as the server's stop does.
 *
 * <p>A test closes it after the allocators running on it, like any resource it made. {@link
 * #manual} makes none: the test runs every load itself, so nothing has to be waited for.
 */
public final class EngineThreadsFixture implements AutoCloseable {

  private final List<ExecutorService> made = new ArrayList<>();
  private final EngineThreads threads;

  /** Loaders sized by {@code config}, deadlines on a real thread. */
  public EngineThreadsFixture(EngineConfig config) {
    this.threads = ServerThreads.engineThreads(config, made::add);
  }

  /** Loaders sized by {@code config}, deadlines on {@code timer} (a {@link ManualTimer}, say). */
  public EngineThreadsFixture(EngineConfig config, DeadlineTimer timer) {
    EngineThreads real = ServerThreads.engineThreads(config, made::add);
    this.threads = new EngineThreads(real.loads(), real.firstLoads(), timer);
  }

  private EngineThreadsFixture(EngineThreads threads) {
    this.threads = threads;
  }

  /**
   * No thread at all: loads and first loads wait in {@code loads} until the test runs them ({@link
   * ManualExecutor#runAll}), deadlines on {@code timer}.
   */
  public static EngineThreadsFixture manual(ManualExecutor loads, DeadlineTimer timer) {
    return new EngineThreadsFixture(new EngineThreads(loads, loads, timer));
  }

  public EngineThreads threads() {
    return threads;
  }

  @Override
  public void close() {
    made.forEach(ExecutorService::shutdownNow);
  }
}
