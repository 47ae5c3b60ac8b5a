import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.MetadataUtils;
import io.leaf.server.sequence.Sequences;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.LeafServiceGrpc.LeafServiceBlockingStub;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextSequenceRequest;
import io.leaf.v1.Ordering;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.TagStatus;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * The acceptance run of STRICT tags against the packaged server, on a fresh MariaDB database:
 *
 * <ol>
 *   <li>three {@code java -jar leaf-server.jar} processes, each SERVING on gRPC health;
 *   <li>a tag created STRICT: every server's GetTag says STRICT (before and after the failovers),
 *       ReserveIds on it is FAILED_PRECONDITION;
 *   <li>callers through every server (NextId, and NextIdBatch of 2-5), each call's send and return
 *       time on one monotonic clock; the owner killed -9, then the next owner SIGSTOPped for two
 *       TTLs plus a second and resumed;
 *   <li>NextSequence on 500 keys of another STRICT tag through every server (the killed one
 *       restarted on its address), a server holding sequence groups killed -9;
 *   <li>offline checks: real-time order (a successful call whose smallest ID is not above every ID
 *       returned before it was sent, or a batch that is not one increasing run, is a violation; per
 *       key for sequences) and repeats (an ID, or a key's value, returned twice).
 * </ol>
 *
 * <p>Run with the server jar on the class path: {@code java -cp server/target/leaf-server.jar
 * scripts/StrictAcceptance.java --jar server/target/leaf-server.jar} (scripts/strict-acceptance.sh
 * does). Prints one summary line per part; exits 0 when everything held, 1 on an order violation, a
 * repeat, a check that failed or a part that served nothing after its failure, 2 when the run could
 * not be made. The database is dropped and every server killed on every exit path; the server logs
 * and every call (CSV) stay in {@code --work}.
 */
public final class StrictAcceptance {

  private static final String STRICT_TAG = "events";
  private static final String SEQUENCE_TAG = "chats";
  private static final long CALL_DEADLINE_MS = 3000;
  private static final long BACKOFF_MS = 50;
  private static final Metadata.Key<String> OWNER_HEADER =
      Metadata.Key.of("leaf-owner", Metadata.ASCII_STRING_MARSHALLER);

  /** The command line, with its defaults. */
  static final class Options {
    String jar = "server/target/leaf-server.jar";
    Path work;
    String mysql = "jdbc:mysql://127.0.0.1:3306/";
    String dbUser = "root";
    String dbPassword = "";
    long ttlMs = 2000;
    int callersPerServer = 8;
    long strictSeconds = 24;
    long killAtSeconds = 6;
    int keys = 500;
    long sequenceSeconds = 10;
    long sequenceKillAtSeconds = 4;
    long startTimeoutSeconds = 180;

    static Options parse(String[] args) {
      Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        String flag = args[i];
        if (flag.equals("--help") || flag.equals("-h")) {
          System.out.println(usage());
          System.exit(0);
        }
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(flag + " needs a value\n" + usage());
        }
        String v = args[++i];
        switch (flag) {
          case "--jar" -> o.jar = v;
          case "--work" -> o.work = Path.of(v);
          case "--mysql" -> o.mysql = v.endsWith("/") ? v : v + "/";
          case "--db-user" -> o.dbUser = v;
          case "--db-password" -> o.dbPassword = v;
          case "--tag-lease-ttl" -> o.ttlMs = millis(v);
          case "--callers-per-server" -> o.callersPerServer = Integer.parseInt(v);
          case "--seconds" -> o.strictSeconds = Long.parseLong(v);
          case "--kill-at" -> o.killAtSeconds = Long.parseLong(v);
          case "--keys" -> o.keys = Integer.parseInt(v);
          case "--sequence-seconds" -> o.sequenceSeconds = Long.parseLong(v);
          case "--sequence-kill-at" -> o.sequenceKillAtSeconds = Long.parseLong(v);
          case "--start-timeout" -> o.startTimeoutSeconds = Long.parseLong(v);
          default -> throw new IllegalArgumentException("unknown flag " + flag + "\n" + usage());
        }
      }
      if (o.work == null) {
        try {
          o.work = Files.createTempDirectory("leaf-strict-acceptance-");
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      }
      return o;
    }

    static String usage() {
      return String.join(
          "\n",
          "java -cp leaf-server.jar scripts/StrictAcceptance.java [--flag value]...",
          "  --jar PATH                the jar the servers run (server/target/leaf-server.jar)",
          "  --work DIR                server logs, call records, pids (a new temporary directory)",
          "  --mysql URL               MariaDB/MySQL to create the database on"
              + " (jdbc:mysql://127.0.0.1:3306/)",
          "  --db-user, --db-password  its account (root, empty)",
          "  --tag-lease-ttl DURATION  the servers' --tag-lease-ttl (2s)",
          "  --callers-per-server N    caller threads per server in both parts (8)",
          "  --seconds N               length of the NextId part (24)",
          "  --kill-at N               second of the NextId part the owner is killed -9 at (6)",
          "  --keys N                  NextSequence keys (500)",
          "  --sequence-seconds N      length of the NextSequence part (10)",
          "  --sequence-kill-at N      second of it a group owner is killed -9 at (4)",
          "  --start-timeout N         seconds a server may take to report SERVING (180)");
    }

    static long millis(String v) {
      if (v.endsWith("ms")) {
        return Long.parseLong(v.substring(0, v.length() - 2));
      }
      if (v.endsWith("s")) {
        return Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000);
      }
      return Long.parseLong(v);
    }
  }

  /** One server process: its port (also its advertised address), log and channel. */
  static final class Server {
    final int index;
    final int port;
    final String address;
    Process process;
    ManagedChannel channel;
    boolean dead;

    Server(int index, int port) {
      this.index = index;
      this.port = port;
      this.address = "127.0.0.1:" + port;
    }

    LeafServiceBlockingStub stub(long deadlineMs) {
      return LeafServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(deadlineMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public String toString() {
      return "server " + index + " (" + address + ", pid " + process.pid() + ")";
    }
  }

  /**
   * A call that returned IDs: the server it went through, its caller thread, the RPC, its send and
   * return times (nanoTime), the IDs (or the sequence value), the owner header and the key.
   */
  record Call(
      int server,
      int thread,
      String rpc,
      long sent,
      long returned,
      long[] ids,
      String owner,
      String key) {

    long min() {
      long m = Long.MAX_VALUE;
      for (long id : ids) {
        m = Math.min(m, id);
      }
      return m;
    }

    long max() {
      long m = Long.MIN_VALUE;
      for (long id : ids) {
        m = Math.max(m, id);
      }
      return m;
    }

    boolean increasingRun() {
      for (int i = 1; i < ids.length; i++) {
        if (ids[i] <= ids[i - 1]) {
          return false;
        }
      }
      return true;
    }
  }

  /** A failed call: where it went, its RPC and key, its send and return times and status. */
  record Failure(
      int server, int thread, String rpc, String key, long sent, long returned, Status status) {}

  /** What one caller thread saw: its successful calls and its failures by status code. */
  static final class CallerLog {
    final List<Call> calls = new ArrayList<>();
    final Map<Status.Code, Integer> failed = new EnumMap<>(Status.Code.class);
    final List<Failure> failures = new ArrayList<>();
    final int server;

    CallerLog(int server) {
      this.server = server;
    }

    void failed(StatusRuntimeException e, int thread, String rpc, String key, long sent) {
      failed.merge(e.getStatus().getCode(), 1, Integer::sum);
      failures.add(new Failure(server, thread, rpc, key, sent, System.nanoTime(), e.getStatus()));
    }
  }

  /** Violations and repeats found in a set of calls, with a description of each. */
  static final class Findings {
    int violations;
    int repeats;
    final List<String> details = new ArrayList<>();
  }

  private final Options o;
  private final String database;
  private final List<Server> servers = new ArrayList<>();
  private final AtomicBoolean cleanedUp = new AtomicBoolean();
  private final List<String> problems = new ArrayList<>();

  StrictAcceptance(Options o) {
    this.o = o;
    this.database = "leaf_accept_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  }

  public static void main(String[] args) {
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    StrictAcceptance run = new StrictAcceptance(o);
    Runtime.getRuntime().addShutdownHook(new Thread(run::cleanUp, "clean-up"));
    int status;
    try {
      status = run.run();
    } catch (Throwable t) {
      System.out.println("ERROR: the run could not be made: " + t);
      t.printStackTrace(System.out);
      status = 2;
    } finally {
      run.cleanUp();
    }
    System.out.println(
        status == 0
            ? "PASSED strict acceptance"
            : "FAILED strict acceptance" + (status == 2 ? " (run not made)" : ""));
    System.exit(status);
  }

  int run() throws Exception {
    checkTheChecker();
    Files.createDirectories(o.work);
    Files.writeString(o.work.resolve("database"), database + "\n");
    try (Connection c = admin();
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + database);
    }
    System.out.printf(
        "setup: database %s on %s, jar %s, --tag-lease-ttl %dms, work %s%n",
        database, o.mysql, o.jar, o.ttlMs, o.work);
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      int port;
      do {
        port = freePort();
      } while (!ports.add(port));
      servers.add(new Server(i, port));
    }
    long origin = System.nanoTime();
    for (Server s : servers) {
      start(s, "server-" + s.index + ".log");
    }
    for (Server s : servers) {
      awaitServing(s);
    }
    System.out.printf(
        "setup: %d servers SERVING after %.1f s: %s%n",
        servers.size(), seconds(System.nanoTime() - origin), servers);

    servers
        .get(0)
        .stub(60_000)
        .createTag(
            CreateTagRequest.newBuilder()
                .setBizTag(STRICT_TAG)
                .setOrdering(Ordering.STRICT)
                .build());
    strictKept("before the failovers", STRICT_TAG, live());
    reserveRefused();
    strictPart();

    Server restarted = servers.stream().filter(s -> s.dead).findFirst().orElseThrow();
    start(restarted, "server-" + restarted.index + "-restarted.log");
    awaitServing(restarted);
    System.out.printf("setup: %s restarted on its address, SERVING%n", restarted);
    servers
        .get(0)
        .stub(60_000)
        .createTag(
            CreateTagRequest.newBuilder()
                .setBizTag(SEQUENCE_TAG)
                .setOrdering(Ordering.STRICT)
                .build());
    sequencePart();
    strictKept("after the failovers", STRICT_TAG, live());
    strictKept("after the failovers", SEQUENCE_TAG, live());

    serverLogs();
    for (String p : problems) {
      System.out.println("FAILED: " + p);
    }
    return problems.isEmpty() ? 0 : 1;
  }

  // ---- part 1: NextId and NextIdBatch, the owner killed -9, the next owner SIGSTOPped ----

  private void strictPart() throws Exception {
    AtomicBoolean done = new AtomicBoolean();
    List<CallerLog> logs = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (Server s : servers) {
      for (int c = 0; c < o.callersPerServer; c++) {
        CallerLog log = new CallerLog(s.index);
        logs.add(log);
        int thread = threads.size();
        boolean batch = c % 4 == 3;
        Thread t = new Thread(() -> callIds(s, thread, batch, done, log), "ids-" + thread);
        threads.add(t);
      }
    }
    long start = System.nanoTime();
    threads.forEach(Thread::start);
    List<String> timeline = new ArrayList<>();

    sleepUntil(start + TimeUnit.SECONDS.toNanos(o.killAtSeconds));
    Server first = ownerOf(STRICT_TAG, List.of(servers.get(0)), null, 20_000);
    long killed = Long.MIN_VALUE;
    long stopped = Long.MIN_VALUE;
    long resumed = Long.MIN_VALUE;
    Server second = null;
    if (first == null) {
      problems.add("NextId part: no owner named by GetTag within 20 s of the kill time");
    } else {
      killed = System.nanoTime();
      int exit = kill9(first);
      timeline.add(String.format("kill -9 %s +%.2f s (exit %d)", first, rel(killed, start), exit));
      List<Server> survivors = live();
      second = ownerOf(STRICT_TAG, survivors, first, 30_000);
      if (second == null) {
        problems.add("NextId part: no new owner named within 30 s of the kill");
      } else {
        stopped = System.nanoTime();
        signal(second, "STOP");
        timeline.add(String.format("next owner %s SIGSTOP +%.2f s", second, rel(stopped, start)));
        sleepUntil(stopped + TimeUnit.MILLISECONDS.toNanos(2 * o.ttlMs + 1000));
        signal(second, "CONT");
        resumed = System.nanoTime();
        timeline.add(String.format("SIGCONT +%.2f s", rel(resumed, start)));
      }
    }
    long end =
        Math.max(
            start + TimeUnit.SECONDS.toNanos(o.strictSeconds),
            resumed == Long.MIN_VALUE ? 0 : resumed + TimeUnit.SECONDS.toNanos(4));
    sleepUntil(end);
    done.set(true);
    joinAll(threads);
    long ended = System.nanoTime();
    timeline.add(String.format("callers stopped +%.2f s", rel(ended, start)));

    List<Call> calls = merge(logs);
    writeCalls("strict-calls.csv", calls, start);
    writeFailures("strict-failures.csv", logs, start);
    Findings f = checkOrder(calls, start);
    String failed = failures(logs);
    long afterKill = firstSuccessAfter(calls, killed);
    long afterStop = firstSuccessAfter(calls, stopped);
    long servedAfterKill = sentAfter(calls, killed);
    long servedAfterCont = sentAfter(calls, resumed);
    Map<String, Integer> owners = new TreeMap<>();
    calls.forEach(c -> owners.merge(c.owner().isEmpty() ? "?" : c.owner(), 1, Integer::sum));
    int attempts = calls.size() + logs.stream().mapToInt(StrictAcceptance::failedCount).sum();
    long ids = calls.stream().mapToLong(c -> c.ids().length).sum();

    System.out.println("strict timeline: " + String.join("; ", timeline));
    System.out.printf(
        "strict NextId/NextIdBatch: %d callers, %.1f s: calls %d, successes %d (%d IDs; %d sent"
            + " after the kill, %d after SIGCONT), failed %s, violations %d, repeats %d,"
            + " failover: kill -9 -> first success %s, SIGSTOP -> first success %s; answers by"
            + " owner %s%n",
        threads.size(),
        seconds(ended - start),
        attempts,
        calls.size(),
        ids,
        servedAfterKill,
        servedAfterCont,
        failed,
        f.violations,
        f.repeats,
        ms(afterKill),
        ms(afterStop),
        owners);
    failureSamples("strict", logs, start);
    report("strict", f);
    if (first != null && servedAfterKill == 0) {
      problems.add("NextId part: nothing served after the owner was killed");
    }
    if (second != null && servedAfterCont == 0) {
      problems.add("NextId part: nothing served after the paused owner resumed");
    }
  }

  private void callIds(Server s, int thread, boolean batch, AtomicBoolean done, CallerLog log) {
    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    LeafServiceBlockingStub stub =
        LeafServiceGrpc.newBlockingStub(s.channel)
            .withInterceptors(MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
    ThreadLocalRandom r = ThreadLocalRandom.current();
    String rpc = batch ? "NextIdBatch" : "NextId";
    while (!done.get()) {
      headers.set(null);
      trailers.set(null);
      long sent = System.nanoTime();
      try {
        long[] ids;
        LeafServiceBlockingStub d = stub.withDeadlineAfter(CALL_DEADLINE_MS, TimeUnit.MILLISECONDS);
        if (batch) {
          List<Long> got = new ArrayList<>();
          d.nextIdBatch(
                  NextIdBatchRequest.newBuilder()
                      .setBizTag(STRICT_TAG)
                      .setCount(2 + r.nextInt(4))
                      .build())
              .forEachRemaining((IdBatch b) -> got.addAll(b.getIdsList()));
          ids = got.stream().mapToLong(Long::longValue).toArray();
        } else {
          ids =
              new long[] {
                d.nextId(NextIdRequest.newBuilder().setBizTag(STRICT_TAG).build()).getId()
              };
        }
        long returned = System.nanoTime();
        log.calls.add(
            new Call(s.index, thread, rpc, sent, returned, ids, owner(headers, trailers), ""));
      } catch (StatusRuntimeException e) {
        log.failed(e, thread, rpc, "", sent);
        pause(done);
      }
    }
  }

  private static String owner(
      AtomicReference<Metadata> headers, AtomicReference<Metadata> trailers) {
    for (Metadata m : new Metadata[] {headers.get(), trailers.get()}) {
      if (m != null && m.get(OWNER_HEADER) != null) {
        return m.get(OWNER_HEADER);
      }
    }
    return "";
  }

  // ---- part 2: NextSequence on many keys, a group owner killed -9 ----

  private void sequencePart() throws Exception {
    AtomicBoolean done = new AtomicBoolean();
    List<CallerLog> logs = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (Server s : live()) {
      for (int c = 0; c < o.callersPerServer; c++) {
        CallerLog log = new CallerLog(s.index);
        logs.add(log);
        int thread = threads.size();
        Thread t = new Thread(() -> callSequences(s, thread, done, log), "seq-" + thread);
        threads.add(t);
      }
    }
    long start = System.nanoTime();
    threads.forEach(Thread::start);
    List<String> timeline = new ArrayList<>();

    sleepUntil(start + TimeUnit.SECONDS.toNanos(o.sequenceKillAtSeconds));
    Map<String, List<Integer>> before = groupOwners(SEQUENCE_TAG);
    Server victim = null;
    List<Integer> orphaned = List.of();
    for (Map.Entry<String, List<Integer>> e : before.entrySet()) {
      Server s = byAddress(e.getKey());
      if (s != null && !s.dead && e.getValue().size() > orphaned.size()) {
        victim = s;
        orphaned = e.getValue();
      }
    }
    long killed = Long.MIN_VALUE;
    if (victim == null) {
      problems.add("NextSequence part: no server holds a group lease: " + before);
    } else {
      killed = System.nanoTime();
      int exit = kill9(victim);
      timeline.add(
          String.format(
              "kill -9 %s holding groups %s +%.2f s (exit %d)",
              victim, orphaned, rel(killed, start), exit));
    }
    long end =
        Math.max(
            start + TimeUnit.SECONDS.toNanos(o.sequenceSeconds),
            killed == Long.MIN_VALUE ? 0 : killed + TimeUnit.SECONDS.toNanos(6));
    sleepUntil(end);
    Map<String, List<Integer>> after = groupOwners(SEQUENCE_TAG);
    done.set(true);
    joinAll(threads);
    long ended = System.nanoTime();
    timeline.add(String.format("callers stopped +%.2f s", rel(ended, start)));

    List<Call> calls = merge(logs);
    writeCalls("sequence-calls.csv", calls, start);
    writeFailures("sequence-failures.csv", logs, start);
    Map<String, List<Call>> byKey = new HashMap<>();
    for (Call c : calls) {
      byKey.computeIfAbsent(c.key(), k -> new ArrayList<>()).add(c);
    }
    Findings f = new Findings();
    for (List<Call> keyCalls : byKey.values()) {
      Findings k = checkOrder(keyCalls, start);
      f.violations += k.violations;
      f.repeats += k.repeats;
      f.details.addAll(k.details);
    }
    String failed = failures(logs);
    int attempts = calls.size() + logs.stream().mapToInt(StrictAcceptance::failedCount).sum();
    // Kill -9 to the first success, and to the last group's first success, of the killed
    // server's groups (a key's group by the server's own key-to-group function).
    Set<Integer> lost = new HashSet<>(orphaned);
    Map<Integer, Long> firstByGroup = new TreeMap<>();
    long servedAfterKill = 0;
    for (Call c : calls) {
      if (c.sent() > killed) {
        servedAfterKill++;
        int g = Sequences.group(Sequences.hash(c.key()));
        if (lost.contains(g)) {
          firstByGroup.merge(g, c.returned(), Math::min);
        }
      }
    }
    long firstLost =
        firstByGroup.values().stream().mapToLong(Long::longValue).min().orElse(Long.MIN_VALUE);
    long lastLost =
        firstByGroup.size() == lost.size() && !lost.isEmpty()
            ? firstByGroup.values().stream().mapToLong(Long::longValue).max().getAsLong()
            : Long.MIN_VALUE;

    System.out.println("sequence timeline: " + String.join("; ", timeline));
    System.out.printf(
        "sequence NextSequence: %d callers, %d keys, %.1f s: calls %d, successes %d (%d sent after"
            + " the kill), failed %s, violations %d, repeats %d, failover: kill -9 -> first"
            + " success of its groups %s, every one of its %d groups served again %s; groups by"
            + " owner before %s, after %s%n",
        threads.size(),
        byKey.size(),
        seconds(ended - start),
        attempts,
        calls.size(),
        servedAfterKill,
        failed,
        f.violations,
        f.repeats,
        killed == Long.MIN_VALUE || firstLost == Long.MIN_VALUE ? "never" : ms(firstLost - killed),
        lost.size(),
        lastLost == Long.MIN_VALUE
            ? "no (" + firstByGroup.keySet() + " only)"
            : ms(lastLost - killed),
        before,
        after);
    failureSamples("sequence", logs, start);
    report("sequence", f);
    if (victim != null && (servedAfterKill == 0 || (!lost.isEmpty() && firstByGroup.isEmpty()))) {
      problems.add("NextSequence part: the killed server's groups served nothing after the kill");
    }
  }

  private void callSequences(Server s, int thread, AtomicBoolean done, CallerLog log) {
    LeafServiceBlockingStub stub = LeafServiceGrpc.newBlockingStub(s.channel);
    ThreadLocalRandom r = ThreadLocalRandom.current();
    while (!done.get()) {
      String key = "key-" + r.nextInt(o.keys);
      long sent = System.nanoTime();
      try {
        long v =
            stub.withDeadlineAfter(CALL_DEADLINE_MS, TimeUnit.MILLISECONDS)
                .nextSequence(
                    NextSequenceRequest.newBuilder().setBizTag(SEQUENCE_TAG).setKey(key).build())
                .getValue();
        log.calls.add(
            new Call(
                s.index, thread, "NextSequence", sent, System.nanoTime(), new long[] {v}, "", key));
      } catch (StatusRuntimeException e) {
        log.failed(e, thread, "NextSequence", key, sent);
        pause(done);
      }
    }
  }

  /** The servers holding {@code tag}'s sequence group leases now (by the database's clock). */
  private Map<String, List<Integer>> groupOwners(String tag) throws SQLException {
    Map<String, List<Integer>> owners = new TreeMap<>();
    try (Connection c = DriverManager.getConnection(dbUrl(), o.dbUser, o.dbPassword);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT biz_tag, owner FROM leaf_sequence_lease WHERE owner <> '' AND"
                    + " lease_expires_ms > CAST(UNIX_TIMESTAMP(CURRENT_TIMESTAMP(3)) * 1000 AS"
                    + " SIGNED) ORDER BY biz_tag")) {
      while (rs.next()) {
        String key = rs.getString(1);
        if (key.startsWith(tag + "#")) {
          int group = Integer.parseInt(key.substring(tag.length() + 1));
          owners.computeIfAbsent(rs.getString(2), k -> new ArrayList<>()).add(group);
        }
      }
    }
    owners.values().forEach(l -> l.sort(null));
    return owners;
  }

  // ---- the checker ----

  /**
   * Real-time order and repeats in {@code calls}: sorted by return time with the largest ID
   * returned so far at each position, each call's send time found by binary search among the return
   * times. O(n log n).
   */
  static Findings checkOrder(List<Call> calls, long origin) {
    Findings f = new Findings();
    int n = calls.size();
    Call[] byReturn = calls.toArray(new Call[0]);
    Arrays.sort(byReturn, (a, b) -> Long.compare(a.returned(), b.returned()));
    long[] returned = new long[n];
    long[] maxUpTo = new long[n];
    int[] maxAt = new int[n];
    long max = Long.MIN_VALUE;
    int at = -1;
    for (int i = 0; i < n; i++) {
      returned[i] = byReturn[i].returned();
      long m = byReturn[i].max();
      if (m > max) {
        max = m;
        at = i;
      }
      maxUpTo[i] = max;
      maxAt[i] = at;
    }
    for (Call c : byReturn) {
      if (c.ids().length == 0) {
        continue;
      }
      if (!c.increasingRun()) {
        f.violations++;
        f.details.add("batch not one increasing run: " + describe(c, origin));
        continue;
      }
      int before = lowerBound(returned, c.sent());
      if (before > 0 && c.min() <= maxUpTo[before - 1]) {
        f.violations++;
        Call earlier = byReturn[maxAt[before - 1]];
        f.details.add(
            "order: "
                + describe(c, origin)
                + " is not above "
                + earlier.max()
                + " returned before it was sent by "
                + describe(earlier, origin));
      }
    }
    Map<Long, Call> seen = new HashMap<>(n * 2);
    for (Call c : byReturn) {
      for (long id : c.ids()) {
        Call prior = seen.putIfAbsent(id, c);
        if (prior != null) {
          f.repeats++;
          f.details.add(
              "repeat: "
                  + id
                  + " returned by "
                  + describe(prior, origin)
                  + " and by "
                  + describe(c, origin));
        }
      }
    }
    return f;
  }

  /** Fails unless {@link #checkOrder} finds a known violation, a bad batch and a repeat. */
  static void checkTheChecker() {
    List<Call> calls =
        List.of(
            new Call(0, 0, "NextId", 0, 10, new long[] {5}, "", ""),
            new Call(0, 0, "NextId", 5, 15, new long[] {3}, "", ""),
            new Call(1, 1, "NextId", 11, 20, new long[] {4}, "", ""),
            new Call(1, 1, "NextIdBatch", 21, 30, new long[] {8, 7}, "", ""),
            new Call(2, 2, "NextId", 31, 40, new long[] {8}, "", ""));
    Findings f = checkOrder(calls, 0);
    if (f.violations != 3 || f.repeats != 1) {
      throw new IllegalStateException(
          "the checker found " + f.violations + " violations (3) and " + f.repeats + " repeats (1)");
    }
  }

  private static int lowerBound(long[] sorted, long key) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static String describe(Call c, long origin) {
    return String.format(
        Locale.ROOT,
        "[%s via server %d, thread %d%s%s, sent +%.3f ms, returned +%.3f ms, %s %s]",
        c.rpc(),
        c.server(),
        c.thread(),
        c.key().isEmpty() ? "" : ", key " + c.key(),
        c.owner().isEmpty() ? "" : ", owner " + c.owner(),
        (c.sent() - origin) / 1e6,
        (c.returned() - origin) / 1e6,
        c.ids().length == 1 ? "value" : "ids",
        c.ids().length == 1 ? Long.toString(c.ids()[0]) : Arrays.toString(c.ids()));
  }

  /** The first failure of each status code and RPC through each server, with its description. */
  private static void failureSamples(String part, List<CallerLog> logs, long start) {
    Map<String, Failure> first = new TreeMap<>();
    for (CallerLog l : logs) {
      for (Failure f : l.failures) {
        first.merge(
            f.status().getCode() + "/" + f.server() + "/" + f.rpc(),
            f,
            (a, b) -> a.sent() <= b.sent() ? a : b);
      }
    }
    for (Failure f : first.values()) {
      String line =
          String.format(
              Locale.ROOT,
              "%s failed: %s %s via server %d, first sent +%.3f s (returned +%.3f s): %s",
              part,
              f.status().getCode(),
              f.rpc(),
              f.server(),
              (f.sent() - start) / 1e9,
              (f.returned() - start) / 1e9,
              f.status().getDescription());
      System.out.println(line.length() > 300 ? line.substring(0, 300) : line);
    }
  }

  /** Lines of the servers' logs at WARN or above (SEVERE from grpc-java), by log file. */
  private void serverLogs() throws IOException {
    try (var files = Files.list(o.work)) {
      for (Path log : files.filter(p -> p.toString().endsWith(".log")).sorted().toList()) {
        List<String> bad =
            Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                .filter(
                    l -> l.contains(" WARN ") || l.contains(" ERROR ") || l.startsWith("SEVERE:"))
                .toList();
        if (!bad.isEmpty()) {
          System.out.printf(
              "server log %s: %d lines at WARN or above, first: %s%n",
              log.getFileName(),
              bad.size(),
              bad.get(0).length() > 300 ? bad.get(0).substring(0, 300) : bad.get(0));
        }
      }
    }
  }

  private void report(String part, Findings f) throws IOException {
    if (f.details.isEmpty()) {
      return;
    }
    Path file = o.work.resolve(part + "-findings.txt");
    Files.write(file, f.details, StandardCharsets.UTF_8);
    f.details.stream().limit(20).forEach(d -> System.out.println(part + " " + d));
    System.out.printf("%s: %d findings in all in %s%n", part, f.details.size(), file);
    problems.add(part + ": " + f.violations + " order violations, " + f.repeats + " repeats");
  }

  private void writeCalls(String name, List<Call> calls, long start) throws IOException {
    try (PrintWriter w =
        new PrintWriter(Files.newBufferedWriter(o.work.resolve(name), StandardCharsets.UTF_8))) {
      w.println("server,thread,rpc,key,sent_ms,returned_ms,owner,ids");
      for (Call c : calls) {
        StringBuilder ids = new StringBuilder();
        for (long id : c.ids()) {
          ids.append(ids.length() == 0 ? "" : " ").append(id);
        }
        w.printf(
            Locale.ROOT,
            "%d,%d,%s,%s,%.3f,%.3f,%s,%s%n",
            c.server(),
            c.thread(),
            c.rpc(),
            c.key(),
            (c.sent() - start) / 1e6,
            (c.returned() - start) / 1e6,
            c.owner(),
            ids);
      }
    }
  }

  private void writeFailures(String name, List<CallerLog> logs, long start) throws IOException {
    try (PrintWriter w =
        new PrintWriter(Files.newBufferedWriter(o.work.resolve(name), StandardCharsets.UTF_8))) {
      w.println("server,thread,rpc,key,sent_ms,returned_ms,code,description");
      for (CallerLog l : logs) {
        for (Failure f : l.failures) {
          w.printf(
              Locale.ROOT,
              "%d,%d,%s,%s,%.3f,%.3f,%s,\"%s\"%n",
              f.server(),
              f.thread(),
              f.rpc(),
              f.key(),
              (f.sent() - start) / 1e6,
              (f.returned() - start) / 1e6,
              f.status().getCode(),
              String.valueOf(f.status().getDescription()).replace('"', '\''));
        }
      }
    }
  }

  // ---- GetTag, ReserveIds, owners ----

  private void strictKept(String when, String tag, List<Server> on) {
    List<String> seen = new ArrayList<>();
    boolean kept = true;
    for (Server s : on) {
      String got;
      try {
        TagStatus t = s.stub(10_000).getTag(GetTagRequest.newBuilder().setBizTag(tag).build());
        got = t.getTag().getOrdering().name();
      } catch (StatusRuntimeException e) {
        got = e.getStatus().getCode().name();
      }
      kept &= got.equals("STRICT");
      seen.add("server " + s.index + " " + got);
    }
    System.out.printf("STRICT kept (%s, tag %s): %s: %s%n", when, tag, kept ? "yes" : "NO", seen);
    if (!kept) {
      problems.add("GetTag " + when + " on tag " + tag + " did not say STRICT everywhere: " + seen);
    }
  }

  private void reserveRefused() {
    List<String> seen = new ArrayList<>();
    boolean refused = true;
    for (Server s : live()) {
      String got;
      try {
        s.stub(10_000)
            .reserveIds(ReserveIdsRequest.newBuilder().setBizTag(STRICT_TAG).setCount(10).build());
        got = "OK";
      } catch (StatusRuntimeException e) {
        got = e.getStatus().getCode().name();
      }
      refused &= got.equals("FAILED_PRECONDITION");
      seen.add("server " + s.index + " " + got);
    }
    System.out.printf("ReserveIds on STRICT refused: %s: %s%n", refused ? "yes" : "NO", seen);
    if (!refused) {
      problems.add("ReserveIds on a STRICT tag was not FAILED_PRECONDITION everywhere: " + seen);
    }
  }

  /**
   * The server GetTag names as {@code tag}'s owner, asked of {@code ask} in turn, other than {@code
   * not}; null when none within {@code timeoutMs}.
   */
  private Server ownerOf(String tag, List<Server> ask, Server not, long timeoutMs)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    for (int i = 0; System.nanoTime() < deadline; i++) {
      Server s = ask.get(i % ask.size());
      try {
        String owner =
            s.stub(1000).getTag(GetTagRequest.newBuilder().setBizTag(tag).build()).getOwner();
        Server found = byAddress(owner);
        if (found != null && found != not && !found.dead) {
          return found;
        }
      } catch (StatusRuntimeException e) {
        // asked again
      }
      Thread.sleep(20);
    }
    return null;
  }

  private Server byAddress(String address) {
    return servers.stream().filter(s -> s.address.equals(address)).findFirst().orElse(null);
  }

  private List<Server> live() {
    return servers.stream().filter(s -> !s.dead).toList();
  }

  // ---- processes ----

  private void start(Server s, String logName) throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command =
        new ArrayList<>(
            List.of(
                java.toString(),
                "-jar",
                o.jar,
                "--db-url",
                dbUrl(),
                "--db-user",
                o.dbUser,
                "--port",
                Integer.toString(s.port),
                "--advertise-address",
                s.address,
                "--tag-lease-ttl",
                o.ttlMs + "ms",
                "--http-port",
                "0",
                "--metrics-port",
                "0"));
    if (!o.dbPassword.isEmpty()) {
      command.addAll(List.of("--db-password", o.dbPassword));
    }
    Path log = o.work.resolve(logName);
    s.process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    s.dead = false;
    Files.writeString(
        o.work.resolve("pids"),
        s.process.pid() + " " + s.port + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    if (s.channel == null) {
      s.channel = ManagedChannelBuilder.forTarget(s.address).usePlaintext().build();
    }
  }

  private void awaitServing(Server s) throws Exception {
    HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(s.channel);
    boolean serving =
        poll(
            () -> {
              if (!s.process.isAlive()) {
                return true;
              }
              try {
                return health
                        .withDeadlineAfter(1, TimeUnit.SECONDS)
                        .check(HealthCheckRequest.newBuilder().setService("").build())
                        .getStatus()
                    == ServingStatus.SERVING;
              } catch (StatusRuntimeException e) {
                return false;
              }
            },
            TimeUnit.SECONDS.toMillis(o.startTimeoutSeconds));
    if (!serving || !s.process.isAlive()) {
      throw new IllegalStateException(
          s
              + (s.process.isAlive()
                  ? " not SERVING within " + o.startTimeoutSeconds + " s"
                  : " exited")
              + "; see its log in "
              + o.work);
    }
  }

  /** Kills {@code s} with SIGKILL and waits for it: its exit status, 137 for SIGKILL. */
  private int kill9(Server s) throws InterruptedException {
    s.process.destroyForcibly();
    s.dead = true;
    if (!s.process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException(s + " still alive 30 s after SIGKILL");
    }
    int exit = s.process.exitValue();
    if (exit != 128 + 9) {
      problems.add(s + " exited " + exit + " on destroyForcibly, not 137 (SIGKILL)");
    }
    return exit;
  }

  private static void signal(Server s, String signal) throws IOException, InterruptedException {
    int exit =
        new ProcessBuilder("kill", "-" + signal, Long.toString(s.process.pid()))
            .inheritIO()
            .start()
            .waitFor();
    if (exit != 0) {
      throw new IOException("kill -" + signal + " " + s.process.pid() + " exited " + exit);
    }
  }

  /** Kills every server started (resuming a paused one first) and drops the database. */
  void cleanUp() {
    if (!cleanedUp.compareAndSet(false, true)) {
      return;
    }
    for (Server s : servers) {
      if (s.process != null && s.process.isAlive()) {
        try {
          signal(s, "CONT");
        } catch (Exception e) {
          // killed below all the same
        }
        s.process.destroyForcibly();
      }
    }
    for (Server s : servers) {
      try {
        if (s.process != null) {
          s.process.waitFor(30, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (s.channel != null) {
        s.channel.shutdownNow();
      }
    }
    try (Connection c = admin();
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + database);
    } catch (SQLException e) {
      System.out.println("could not drop database " + database + ": " + e.getMessage());
    }
  }

  // ---- helpers ----

  private Connection admin() throws SQLException {
    return DriverManager.getConnection(o.mysql, o.dbUser, o.dbPassword);
  }

  private String dbUrl() {
    return o.mysql + database;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static List<Call> merge(List<CallerLog> logs) {
    List<Call> all = new ArrayList<>();
    logs.forEach(l -> all.addAll(l.calls));
    return all;
  }

  /** Failed calls by status code, then by the server they went through. */
  private static String failures(List<CallerLog> logs) {
    Map<Status.Code, Integer> byCode = new EnumMap<>(Status.Code.class);
    Map<Integer, Integer> byServer = new TreeMap<>();
    for (CallerLog l : logs) {
      l.failed.forEach(
          (k, v) -> {
            byCode.merge(k, v, Integer::sum);
            byServer.merge(l.server, v, Integer::sum);
          });
    }
    return byCode.values().stream().mapToInt(Integer::intValue).sum()
        + " "
        + byCode
        + " by server "
        + byServer;
  }

  /** Calls sent after {@code since} (none when it never happened). */
  private static long sentAfter(List<Call> calls, long since) {
    return since == Long.MIN_VALUE ? 0 : calls.stream().filter(c -> c.sent() > since).count();
  }

  /** The return time of the first success among calls sent after {@code since}, less it. */
  private static long firstSuccessAfter(List<Call> calls, long since) {
    if (since == Long.MIN_VALUE) {
      return Long.MIN_VALUE;
    }
    return calls.stream()
        .filter(c -> c.sent() > since)
        .mapToLong(c -> c.returned() - since)
        .min()
        .orElse(Long.MIN_VALUE);
  }

  private static int failedCount(CallerLog l) {
    return l.failed.values().stream().mapToInt(Integer::intValue).sum();
  }

  private static void joinAll(List<Thread> threads) throws InterruptedException {
    for (Thread t : threads) {
      t.join(CALL_DEADLINE_MS + 30_000);
    }
  }

  private static void pause(AtomicBoolean done) {
    if (!done.get()) {
      try {
        Thread.sleep(BACKOFF_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        done.set(true);
      }
    }
  }

  private static void sleepUntil(long nanos) throws InterruptedException {
    long left;
    while ((left = nanos - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
    }
  }

  private static boolean poll(BooleanSupplier done, long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (System.nanoTime() < deadline) {
      if (done.getAsBoolean()) {
        return true;
      }
      Thread.sleep(200);
    }
    return done.getAsBoolean();
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }

  private static double rel(long nanos, long start) {
    return (nanos - start) / 1e9;
  }

  private static String ms(long nanos) {
    return nanos == Long.MIN_VALUE ? "never" : TimeUnit.NANOSECONDS.toMillis(nanos) + " ms";
  }
}
