package io.leaf.client;

import io.grpc.CallCredentials;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.Context;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.TlsChannelCredentials;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.DecodeSnowflakeIdRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.GetWorkerRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.InitCacheRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextSnowflakeIdBatchRequest;
import io.leaf.v1.NextSnowflakeIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.ReservedIds;
import io.leaf.v1.SnowflakeIdParts;
import io.leaf.v1.SnowflakeServiceGrpc;
import io.leaf.v1.Tag;
import io.leaf.v1.TagStatus;
import io.leaf.v1.UpdateStepRequest;
import io.leaf.v1.WorkerStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * A blocking client for one Leaf service: each method is one RPC with the client's deadline, and
 * every failure is a {@link LeafException} subclass chosen by the gRPC status code.
 *
 * <p>Thread-safe; share one instance. A client built from a target or a channel builder owns its
 * channel, which retries UNAVAILABLE with gRPC's own retry policy (see {@link #serviceConfig});
 * {@link #close()} shuts that channel down. A client built on an existing channel uses the
 * channel as it is and leaves it open. A client of several targets ({@link #forTargets}) prefers
 * the first and fails over to the next (see {@link Targets}).
 */
public final class LeafClient implements AutoCloseable {

  /** The full gRPC service name the retry policy applies to. */
  static final String SERVICE = LeafServiceGrpc.SERVICE_NAME;

  private final Targets targets;

  private LeafClient(Targets targets) {
    this.targets = targets;
  }

  /** A client on a new channel to {@code target} ("host:port" or any gRPC target URI). */
  public static Builder forTarget(String target) {
    Objects.requireNonNull(target, "target");
    return new Builder(List.of(target), null, null);
  }

  /**
   * A client on a channel built from {@code builder} (any transport, e.g. in-process); the client
   * adds the retry policy and owns the channel.
   */
  public static Builder forChannelBuilder(ManagedChannelBuilder<?> builder) {
    Objects.requireNonNull(builder, "builder");
    return new Builder(null, List.of(builder), null);
  }

  /** A client on an existing channel, used as configured (no retry policy added), never closed. */
  public static Builder forChannel(ManagedChannel channel) {
    Objects.requireNonNull(channel, "channel");
    return new Builder(null, null, channel);
  }

  /**
   * A client of several servers in order of preference (say this region's, then the next
   * region's): calls go to the first one that answers, move on to the next when it is UNAVAILABLE
   * or silent for {@link Builder#failoverAfter}, and move back once {@link
   * Builder#retryPreferredAfter} has passed and it answers again. CreateTag never moves: it goes
   * to the first target not known down.
   */
  public static Builder forTargets(List<String> targets) {
    Objects.requireNonNull(targets, "targets");
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("targets must not be empty");
    }
    targets.forEach(t -> Objects.requireNonNull(t, "target"));
    return new Builder(List.copyOf(targets), null, null);
  }

  /** As {@link #forTargets}, on channels built from {@code builders} (any transport). */
  public static Builder forChannelBuilders(List<? extends ManagedChannelBuilder<?>> builders) {
    Objects.requireNonNull(builders, "builders");
    if (builders.isEmpty()) {
      throw new IllegalArgumentException("builders must not be empty");
    }
    return new Builder(null, List.copyOf(builders), null);
  }

  /** Methods that are safe to repeat: reads, ID calls (a repeat is a gap) and setting a step. */
  static final List<String> RETRIED_METHODS = List.of("NextId", "NextIdBatch", "ReserveIds",
      "InitCache", "GetTag", "ListTags", "UpdateStep");
  /** SnowflakeService methods, all safe to repeat (a repeated ID call is a gap). */
  static final List<String> RETRIED_SNOWFLAKE_METHODS = List.of("NextSnowflakeId",
      "NextSnowflakeIdBatch", "DecodeSnowflakeId", "GetWorker");

  /**
   * The channel's default service config: every LeafService method except CreateTag retries
   * UNAVAILABLE up to {@code maxAttempts} attempts in total, backing off from 100 ms up to 2 s.
   * gRPC retries only calls the server has not answered with a message yet, so a half-received ID
   * stream is never replayed; a retried ID call at worst leaves a gap. CreateTag is not retried: an
   * insert that committed before its reply was lost would come back as ALREADY_EXISTS.
   */
  static Map<String, ?> serviceConfig(int maxAttempts) {
    Map<String, Object> retryPolicy = Map.of(
        "maxAttempts", (double) maxAttempts,
        "initialBackoff", "0.1s",
        "maxBackoff", "2s",
        "backoffMultiplier", 2.0,
        "retryableStatusCodes", List.of("UNAVAILABLE"));
    Map<String, Object> methodConfig = Map.of(
        "name", Stream.concat(
            RETRIED_METHODS.stream().map(m -> Map.of("service", SERVICE, "method", m)),
            RETRIED_SNOWFLAKE_METHODS.stream().map(m -> Map.of(
                "service", SnowflakeServiceGrpc.SERVICE_NAME, "method", m))).toList(),
        "retryPolicy", retryPolicy);
    return Map.of("methodConfig", List.of(methodConfig));
  }

  /** One RPC, moving to the next target when this one is unavailable (a repeat is a gap). */
  private <T> T call(Function<Targets.Attempt, T> rpc) {
    return targets.call(rpc, true);
  }

  /** One ID of {@code bizTag}. */
  public long nextId(String bizTag) {
    NextIdRequest req = NextIdRequest.newBuilder().setBizTag(tag(bizTag)).build();
    return call(a -> a.leaf().nextId(req).getId());
  }

  /**
   * {@code count} IDs of {@code bizTag} from one NextIdBatch stream, in the order the server sent
   * them (increasing). The deadline covers the whole stream.
   */
  public long[] nextIds(String bizTag, int count) {
    NextIdBatchRequest req = NextIdBatchRequest.newBuilder().setBizTag(tag(bizTag)).setCount(count)
        .build();
    return streamAll(a -> a.leaf().nextIdBatch(req), count);
  }

  /**
   * Reads every chunk of the stream {@code open} starts, {@code count} IDs in all. Leaving early
   * (a reply that breaks the contract) cancels the stream instead of leaving the call open until
   * its deadline.
   */
  private long[] streamAll(Function<Targets.Attempt, Iterator<IdBatch>> open, int count) {
    return call(a -> {
      Context.CancellableContext scope = Context.current().withCancellation();
      try {
        return scope.call(() -> readAll(open.apply(a), count));
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      } finally {
        scope.cancel(null);
      }
    });
  }

  private static long[] readAll(Iterator<IdBatch> stream, int count) {
    long[] ids = new long[Math.max(count, 0)];
    int n = 0;
    while (stream.hasNext()) {
      IdBatch batch = stream.next();
      int size = batch.getIdsCount();
      if (n + size > ids.length) {
        throw new LeafException(Status.Code.INTERNAL,
            "server streamed more than the " + count + " IDs asked for", null);
      }
      for (int i = 0; i < size; i++) {
        ids[n++] = batch.getIds(i);
      }
    }
    if (n != ids.length) {
      throw new LeafException(Status.Code.INTERNAL,
          "server streamed " + n + " IDs, " + count + " asked for", null);
    }
    return ids;
  }

  /**
   * One snowflake ID: time-ordered, no tag (UNAVAILABLE while the server holds no worker lease,
   * which a retry may cure).
   */
  public long nextSnowflakeId() {
    return call(a -> a.snowflake().nextSnowflakeId(NextSnowflakeIdRequest.getDefaultInstance())
        .getId());
  }

  /**
   * {@code count} snowflake IDs from one NextSnowflakeIdBatch stream, increasing. The deadline
   * covers the whole stream.
   */
  public long[] nextSnowflakeIds(int count) {
    NextSnowflakeIdBatchRequest req = NextSnowflakeIdBatchRequest.newBuilder().setCount(count)
        .build();
    return streamAll(a -> a.snowflake().nextSnowflakeIdBatch(req), count);
  }

  /** The parts of a snowflake ID in the server's layout (time, worker ID, sequence). */
  public SnowflakeIdParts decode(long id) {
    DecodeSnowflakeIdRequest req = DecodeSnowflakeIdRequest.newBuilder().setId(id).build();
    return call(a -> a.snowflake().decodeSnowflakeId(req));
  }

  /** The server's worker lease and snowflake layout. */
  public WorkerStatus getWorker() {
    return call(a -> a.snowflake().getWorker(GetWorkerRequest.getDefaultInstance()));
  }

  /**
   * Creates {@code bizTag}. {@code maxId} 0 means the server's default (1), {@code step} 0 its
   * default (200); a null description is stored as none.
   */
  public Tag createTag(String bizTag, long maxId, int step, String description) {
    CreateTagRequest req = CreateTagRequest.newBuilder().setBizTag(tag(bizTag)).setMaxId(maxId)
        .setStep(step).setDescription(description == null ? "" : description).build();
    // Not moved to another target: that would create the tag in another database.
    return targets.call(a -> a.leaf().createTag(req), false);
  }

  /** Sets the tag's step; the server's next segment load uses it. */
  public Tag updateStep(String bizTag, int step) {
    UpdateStepRequest req = UpdateStepRequest.newBuilder().setBizTag(tag(bizTag)).setStep(step)
        .build();
    return call(a -> a.leaf().updateStep(req));
  }

  /** Makes the server load the tag's segment now (idempotent) and returns its status. */
  public TagStatus initCache(String bizTag) {
    InitCacheRequest req = InitCacheRequest.newBuilder().setBizTag(tag(bizTag)).build();
    return call(a -> a.leaf().initCache(req));
  }

  /** The tag's database row and the server's cached segments. */
  public TagStatus getTag(String bizTag) {
    GetTagRequest req = GetTagRequest.newBuilder().setBizTag(tag(bizTag)).build();
    return call(a -> a.leaf().getTag(req));
  }

  private static String tag(String bizTag) {
    return Objects.requireNonNull(bizTag, "bizTag");
  }

  /**
   * {@code count} IDs of {@code bizTag} as at most 3 ascending, disjoint ranges the caller owns,
   * in one small reply whatever the count (up to the server's {@code --max-batch}).
   *
   * @throws LeafException typed by the status; INTERNAL if the reply breaks the contract
   */
  public List<IdRange> reserveIds(String bizTag, int count) {
    ReserveIdsRequest req = ReserveIdsRequest.newBuilder().setBizTag(tag(bizTag)).setCount(count)
        .build();
    return call(a -> ranges(a.leaf().reserveIds(req), count));
  }

  /** The reply's ranges, checked: a client that caches them must never hand out an ID twice. */
  static List<IdRange> ranges(ReservedIds reply, long count) {
    List<IdRange> out = new ArrayList<>(reply.getRangesCount());
    long total = 0;
    long lastEnd = Long.MIN_VALUE;
    for (io.leaf.v1.IdRange r : reply.getRangesList()) {
      if (r.getEnd() <= r.getStart() || r.getStart() < lastEnd) {
        throw new LeafException(Status.Code.INTERNAL, "server sent ranges that are empty, out of"
            + " order or overlapping: " + reply.getRangesList(), null);
      }
      total += r.getEnd() - r.getStart();
      lastEnd = r.getEnd();
      out.add(new IdRange(r.getStart(), r.getEnd()));
    }
    if (total != count) {
      throw new LeafException(Status.Code.INTERNAL, "server reserved " + total + " IDs, " + count
          + " asked for", null);
    }
    return List.copyOf(out);
  }

  /**
   * The channel this client's calls go over, for other services of the same server (e.g. the
   * standard grpc.health.v1 health check). Calls on it carry none of the client's credentials or
   * deadlines; the client still decides when the channel closes. With several targets, the
   * channel of the one calls go to now.
   */
  public Channel channel() {
    return targets.current();
  }

  /** Shuts down the channels if this client built them, waiting up to five seconds; else nothing. */
  @Override
  public void close() {
    targets.close();
  }

  /** Configures a {@link LeafClient}; bad values are rejected at once. */
  public static final class Builder {

    private final List<String> targets;
    private final List<? extends ManagedChannelBuilder<?>> channelBuilders;
    private final ManagedChannel channel;
    private Duration deadline = Duration.ofSeconds(10);
    private ChannelCredentials credentials = InsecureChannelCredentials.create();
    private int maxAttempts = 4;
    private CallCredentials callCredentials;
    private Duration failoverAfter = Duration.ofSeconds(2);
    private Duration retryPreferredAfter = Duration.ofSeconds(30);
    private LongSupplier clock = System::nanoTime;

    private Builder(List<String> targets, List<? extends ManagedChannelBuilder<?>> channelBuilders,
        ManagedChannel channel) {
      this.targets = targets;
      this.channelBuilders = channelBuilders;
      this.channel = channel;
    }

    /**
     * With several targets: the longest one attempt waits for an answer while another target
     * remains, before the call moves on (default 2 s). An UNAVAILABLE answer moves it at once.
     */
    public Builder failoverAfter(Duration failoverAfter) {
      this.failoverAfter = positive(failoverAfter, "failoverAfter");
      return this;
    }

    /**
     * With several targets: how long calls pass over a target found unavailable before they try
     * it first again (default 30 s).
     */
    public Builder retryPreferredAfter(Duration retryPreferredAfter) {
      this.retryPreferredAfter = positive(retryPreferredAfter, "retryPreferredAfter");
      return this;
    }

    /** The clock of {@link #retryPreferredAfter}, in nanoseconds (tests). */
    Builder clock(LongSupplier clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    private static Duration positive(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive: " + d);
      }
      return d;
    }

    /** The deadline of every call, retries included (default 10 s). */
    public Builder deadline(Duration deadline) {
      Objects.requireNonNull(deadline, "deadline");
      if (deadline.isNegative() || deadline.isZero()) {
        throw new IllegalArgumentException("deadline must be positive: " + deadline);
      }
      this.deadline = deadline;
      return this;
    }

    /**
     * Plaintext (the default): no transport security. Only with {@link #forTarget} or {@link
     * #forTargets}.
     */
    public Builder usePlaintext() {
      return credentials(InsecureChannelCredentials.create());
    }

    /**
     * TLS with the JDK's default trust store. Only with {@link #forTarget} or {@link
     * #forTargets}.
     */
    public Builder useTls() {
      return credentials(TlsChannelCredentials.create());
    }

    /**
     * Any channel credentials, e.g. {@code TlsChannelCredentials.newBuilder().trustManager(caPem)}.
     * Only with {@link #forTarget} or {@link #forTargets}.
     */
    public Builder credentials(ChannelCredentials credentials) {
      this.credentials = Objects.requireNonNull(credentials, "credentials");
      return this;
    }

    /**
     * Sends {@code authorization: Bearer <token>} on every call: the server's {@code
     * --admin-token} for CreateTag and UpdateStep, its {@code --client-token} (or the admin token)
     * for the rest when it requires one. Use it with TLS: the token is a password.
     */
    public Builder token(String token) {
      return callCredentials(new BearerToken(token));
    }

    /** Any per-call credentials (e.g. {@link BearerToken}); none by default. */
    public Builder callCredentials(CallCredentials callCredentials) {
      this.callCredentials = Objects.requireNonNull(callCredentials, "callCredentials");
      return this;
    }

    /**
     * Attempts per call when the server answers UNAVAILABLE, the first included (default 4; 1
     * turns retries off; gRPC caps it at 5). Not used with {@link #forChannel}.
     */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1 || maxAttempts > 5) {
        throw new IllegalArgumentException("maxAttempts must be between 1 and 5, got " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    public LeafClient build() {
      if (channel != null) {
        return new LeafClient(targets(List.of(channel), false));
      }
      List<ManagedChannel> channels = new ArrayList<>();
      List<? extends ManagedChannelBuilder<?>> builders = channelBuilders != null
          ? channelBuilders
          : targets.stream().map(t -> Grpc.newChannelBuilder(t, credentials)).toList();
      for (ManagedChannelBuilder<?> b : builders) {
        b.defaultServiceConfig(serviceConfig(maxAttempts));
        if (maxAttempts > 1) {
          b.enableRetry();
        } else {
          b.disableRetry();
        }
        channels.add(b.build());
      }
      return new LeafClient(targets(channels, true));
    }

    private Targets targets(List<ManagedChannel> channels, boolean owned) {
      return new Targets(channels, owned, callCredentials, deadline.toNanos(),
          failoverAfter.toNanos(), retryPreferredAfter.toNanos(), clock);
    }
  }
}
