package io.leaf.server.testing;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.v1.GetWorkerRequest;
import io.leaf.v1.NextSnowflakeIdRequest;
import io.leaf.v1.SnowflakeServiceGrpc;
import io.leaf.v1.WorkerStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Real Leaf server processes ({@link ServerProcess}) serving snowflake IDs from one database, a
 * channel to each, and callers that record every ID they receive. {@link #close()} stops them all.
 */
public final class SnowflakeServers implements AutoCloseable {

  /** One server process and a stub on it. */
  public static final class Server {
    public final ServerProcess process;
    public final ManagedChannel channel;
    public final SnowflakeServiceGrpc.SnowflakeServiceBlockingStub stub;

    Server(ServerProcess process, ManagedChannel channel) {
      this.process = process;
      this.channel = channel;
      this.stub = SnowflakeServiceGrpc.newBlockingStub(channel);
    }

    /** The lease as GetWorker reports it; null when the server does not answer in time. */
    public WorkerStatus worker() {
      try {
        return stub.withDeadlineAfter(2, TimeUnit.SECONDS)
            .getWorker(GetWorkerRequest.getDefaultInstance());
      } catch (StatusRuntimeException e) {
        return null;
      }
    }

    /** Waits until the server holds {@code workerId} (any with -2); false on timeout. */
    public boolean awaitWorker(int workerId, long seconds) throws InterruptedException {
      return Poll.until(
          () -> {
            WorkerStatus w = worker();
            return w != null
                && w.getWorkerId() >= 0
                && (workerId == -2 || w.getWorkerId() == workerId);
          },
          Duration.ofSeconds(seconds));
    }
  }

  /** Callers that ask one server for IDs in a loop, recording each ID and each failure code. */
  public static final class Load {
    public final ConcurrentLinkedQueue<Long> ids = new ConcurrentLinkedQueue<>();
    public final Map<Status.Code, Integer> failures = new ConcurrentHashMap<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();

    Load(Server server, int callers) {
      for (int i = 0; i < callers; i++) {
        Thread t =
            new Thread(
                () -> {
                  while (!stop.get()) {
                    try {
                      ids.add(
                          server
                              .stub
                              .withDeadlineAfter(1, TimeUnit.SECONDS)
                              .nextSnowflakeId(NextSnowflakeIdRequest.getDefaultInstance())
                              .getId());
                    } catch (StatusRuntimeException e) {
                      failures.merge(e.getStatus().getCode(), 1, Integer::sum);
                      if (!Pace.backOffUnlessInterrupted()) {
                        return;
                      }
                    }
                  }
                },
                "snowflake-load");
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }
    }

    /** Waits until the callers received at least {@code n} IDs in all; false after 60 s. */
    public boolean awaitIds(int n) throws InterruptedException {
      return Poll.until(() -> ids.size() >= n, Duration.ofSeconds(60));
    }

    /** Failed calls so far, of any code. */
    public int failureCount() {
      return failures.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Stops the callers and waits for their last calls. */
    public void stop() throws InterruptedException {
      stop.set(true);
      for (Thread t : threads) {
        t.join(5_000);
      }
    }
  }

  private final TestDatabase db;
  private final List<Server> servers = new ArrayList<>();
  private final List<Load> loads = new ArrayList<>();

  public SnowflakeServers(TestDatabase db) {
    this.db = db;
  }

  /** Starts a server with {@code env} and {@code flags} (port and database added). */
  public Server start(Map<String, String> env, String... flags)
      throws IOException, InterruptedException {
    int port = Ports.free();
    List<String> args =
        new ArrayList<>(
            List.of(
                "--port",
                Integer.toString(port),
                "--db-url",
                db.url,
                "--db-user",
                db.user,
                "--db-password=" + db.password));
    args.addAll(List.of(flags));
    ServerProcess process = ServerProcess.start(env, args.toArray(String[]::new));
    if (!process.awaitLine("Leaf listening", 60, TimeUnit.SECONDS)) {
      process.close();
      throw new IllegalStateException("server did not start:\n" + process.output());
    }
    Server server =
        new Server(
            process, ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
    servers.add(server);
    return server;
  }

  /** {@code callers} threads asking {@code server} for IDs until {@link Load#stop()}. */
  public Load load(Server server, int callers) {
    Load load = new Load(server, callers);
    loads.add(load);
    return load;
  }

  @Override
  public void close() throws Exception {
    for (Load l : loads) {
      l.stop();
    }
    for (Server s : servers) {
      s.channel.shutdownNow();
      try {
        s.process.signal("CONT");
      } catch (IOException e) {
        // Already gone.
      }
      s.process.close();
    }
  }
}
