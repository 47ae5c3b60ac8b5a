package io.leaf.client;

import io.grpc.CallCredentials;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.TlsChannelCredentials;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.DecodeSnowflakeIdRequest;
import io.leaf.v1.DecodeUuidRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.GetWorkerRequest;
import io.leaf.v1.InitCacheRequest;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextSnowflakeIdBatchRequest;
import io.leaf.v1.NextSnowflakeIdRequest;
import io.leaf.v1.NextUuidRequest;
import io.leaf.v1.ParseFormattedIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.SetFormatRequest;
import io.leaf.v1.SnowflakeIdParts;
import io.leaf.v1.Tag;
import io.leaf.v1.TagStatus;
import io.leaf.v1.UpdateStepRequest;
import io.leaf.v1.Uuid;
import io.leaf.v1.UuidParts;
import io.leaf.v1.WorkerStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A blocking client for one Leaf service: each method is one RPC with the client's deadline, and
 * every failure is a {@link LeafException} subclass chosen by the gRPC status code.
 *
 * <p>Thread-safe; share one instance. A client built from a target or a channel builder owns its
 * channel, which retries UNAVAILABLE with gRPC's own retry policy (every method but CreateTag);
 * {@link #close()} shuts that channel down. A client built on an existing channel uses the
 * channel as it is and leaves it open. A client of several targets ({@link #forTargets}) prefers
 * the first and fails over to the next (see {@link Targets}).
 */
public final class LeafClient implements AutoCloseable {

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
   * Builder#retryPreferredAfter} has passed and it answers again. CreateTag and SetFormat never
   * move: they always go to the first target, and fail while it is down.
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

  /** One RPC, moving to the next target when this one is unavailable (a repeat is a gap). */
  private <T> T call(Function<Targets.Attempt, T> rpc) {
    return targets.call(rpc, true);
  }

  /**
   * One RPC that writes a tag's definition, always on the first target: on another it would write
   * to another region's database.
   */
  private <T> T callInPlace(Function<Targets.Attempt, T> rpc) {
    return targets.call(rpc, false);
  }

  /** One ID of {@code bizTag}. */
  public long nextId(String bizTag) {
    NextIdRequest req = NextIdRequest.newBuilder().setBizTag(tag(bizTag)).build();
    return call(a -> a.leaf(req.getBizTag()).nextId(req).getId());
  }

  /**
   * {@code count} IDs of {@code bizTag} from one NextIdBatch stream, in the order the server sent
   * them (increasing). The deadline covers the whole stream.
   */
  public long[] nextIds(String bizTag, int count) {
    NextIdBatchRequest req = NextIdBatchRequest.newBuilder().setBizTag(tag(bizTag)).setCount(count)
        .build();
    return call(a -> IdStreams.ids(() -> a.leaf(req.getBizTag()).nextIdBatch(req), count));
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
    return call(a -> IdStreams.ids(() -> a.snowflake().nextSnowflakeIdBatch(req), count));
  }

  /** The parts of a snowflake ID in the server's layout (time, worker ID, sequence). */
  public SnowflakeIdParts decode(long id) {
    DecodeSnowflakeIdRequest req = DecodeSnowflakeIdRequest.newBuilder().setId(id).build();
    return call(a -> a.snowflake().decodeSnowflakeId(req));
  }

  /**
   * One version 7 UUID (RFC 9562): time-ordered, each server's strictly increasing, never shared
   * by two servers; {@code ulid} the same bits in Crockford base32. Fails as {@link
   * #nextSnowflakeId()} does.
   */
  public Uuid nextUuid() {
    return call(a -> a.snowflake().nextUuid(NextUuidRequest.getDefaultInstance()));
  }

  /** The timestamp and worker ID of a UUID the server made (canonical or ULID form). */
  public UuidParts decodeUuid(String value) {
    DecodeUuidRequest req = DecodeUuidRequest.newBuilder().setValue(value).build();
    return call(a -> a.snowflake().decodeUuid(req));
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
    return createTag(bizTag, maxId, step, description, null);
  }

  /**
   * Creates {@code bizTag} as {@link #createTag(String, long, int, String)} does, its numbers
   * written in {@code format} (null: none; INVALID_ARGUMENT for a bad one).
   */
  public Tag createTag(String bizTag, long maxId, int step, String description, IdFormat format) {
    CreateTagRequest.Builder req = CreateTagRequest.newBuilder().setBizTag(tag(bizTag))
        .setMaxId(maxId).setStep(step).setDescription(description == null ? "" : description);
    if (format != null) {
      req.setFormat(format.toProto());
    }
    CreateTagRequest built = req.build();
    return callInPlace(a -> a.leaf(built.getBizTag()).createTag(built));
  }

  /**
   * Sets or changes the tag's format (admin token). INVALID_ARGUMENT for a bad format, a reset the
   * pattern cannot show, or a change that could repeat a number the tag issued before.
   */
  public Tag setFormat(String bizTag, IdFormat format) {
    SetFormatRequest req = SetFormatRequest.newBuilder().setBizTag(tag(bizTag))
        .setFormat(Objects.requireNonNull(format, "format").toProto()).build();
    return callInPlace(a -> a.leaf(req.getBizTag()).setFormat(req));
  }

  /**
   * The tag's next formatted number, e.g. {@code ORD-20261126-0004577}.
   *
   * @throws FailedPreconditionException the tag has no format, or its key differs from the
   *     server's
   * @throws OutOfRangeException the period's numbers pass the sequence's width
   */
  public String nextFormattedId(String bizTag) {
    NextIdRequest req = NextIdRequest.newBuilder().setBizTag(tag(bizTag)).build();
    return call(a -> a.leaf(req.getBizTag()).nextFormattedId(req).getValue());
  }

  /**
   * {@code count} formatted numbers of {@code bizTag} from one NextFormattedIdBatch stream, in the
   * order the server sent them; unmodifiable. Same errors as {@link #nextFormattedId}; the
   * deadline covers the whole stream.
   */
  public List<String> nextFormattedIds(String bizTag, int count) {
    NextIdBatchRequest req = NextIdBatchRequest.newBuilder().setBizTag(tag(bizTag)).setCount(count)
        .build();
    return call(a -> IdStreams.values(() -> a.leaf(req.getBizTag()).nextFormattedIdBatch(req),
        count));
  }

  /**
   * Reads a formatted number of {@code bizTag} back (INVALID_ARGUMENT when it does not match the
   * tag's format); an opaque number's sequence needs the admin token, else it is empty.
   */
  public FormattedIdParts parseFormattedId(String bizTag, String value) {
    ParseFormattedIdRequest req = ParseFormattedIdRequest.newBuilder().setBizTag(tag(bizTag))
        .setValue(Objects.requireNonNull(value, "value")).build();
    return call(a -> FormattedIdParts.from(a.leaf(req.getBizTag()).parseFormattedId(req)));
  }

  /** Sets the tag's step; the server's next segment load uses it. */
  public Tag updateStep(String bizTag, int step) {
    UpdateStepRequest req = UpdateStepRequest.newBuilder().setBizTag(tag(bizTag)).setStep(step)
        .build();
    return call(a -> a.leaf(req.getBizTag()).updateStep(req));
  }

  /** Makes the server load the tag's segment now (idempotent) and returns its status. */
  public TagStatus initCache(String bizTag) {
    InitCacheRequest req = InitCacheRequest.newBuilder().setBizTag(tag(bizTag)).build();
    return call(a -> a.leaf(req.getBizTag()).initCache(req));
  }

  /** The tag's database row and the server's cached segments. */
  public TagStatus getTag(String bizTag) {
    GetTagRequest req = GetTagRequest.newBuilder().setBizTag(tag(bizTag)).build();
    return call(a -> a.leaf(req.getBizTag()).getTag(req));
  }

  /**
   * Which server took the range that holds {@code id} of {@code bizTag}, when, and how ({@code
   * kind}: {@code segment}, {@code reserve} or {@code returned}): the server's ledger.
   *
   * @throws TagNotFoundException (NOT_FOUND) no recorded range holds the ID
   * @throws FailedPreconditionException the server runs with {@code --ledger off}
   */
  public io.leaf.v1.IssuedRange whoIssued(String bizTag, long id) {
    io.leaf.v1.WhoIssuedRequest req = io.leaf.v1.WhoIssuedRequest.newBuilder()
        .setBizTag(tag(bizTag)).setId(id).build();
    return call(a -> a.leaf(req.getBizTag()).whoIssued(req));
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
    return call(a -> ReplyRanges.checked(a.leaf(req.getBizTag()).reserveIds(req), count));
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
    private TagTokens tagTokens = TagTokens.NONE;
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
      this.deadline = positive(deadline, "deadline");
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
     * Sends {@code authorization: Bearer <token>} on every call (but those of {@link #tagToken}):
     * the server's {@code --admin-token} for CreateTag and UpdateStep, its {@code --client-token}
     * (or the admin token) for the rest when it requires one, or a token of its {@code
     * --tokens-file}. Use it with TLS: the token is a password.
     */
    public Builder token(String token) {
      return callCredentials(new BearerToken(token));
    }

    /**
     * Sends {@code token} instead on the calls of every tag that starts with {@code tagPrefix}
     * (a plain prefix: {@code "order"} covers {@code order}, {@code order.eu} and {@code orders};
     * the longest matching prefix wins): for a server whose {@code --tokens-file} gives each team
     * its own token. Calls of other tags, and the snowflake calls, send the {@link #token} (if
     * any). Use it with TLS: a token is a password.
     */
    public Builder tagToken(String tagPrefix, String token) {
      this.tagTokens = tagTokens.with(tagPrefix, token);
      return this;
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
      List<? extends ManagedChannelBuilder<?>> builders = channelBuilders != null
          ? channelBuilders
          : targets.stream().map(t -> Grpc.newChannelBuilder(t, credentials)).toList();
      List<ManagedChannel> channels = new ArrayList<>();
      for (ManagedChannelBuilder<?> b : builders) {
        channels.add(RetryPolicy.build(b, maxAttempts));
      }
      return new LeafClient(targets(channels, true));
    }

    private Targets targets(List<ManagedChannel> channels, boolean owned) {
      return new Targets(channels, owned, callCredentials, tagTokens, deadline.toNanos(),
          failoverAfter.toNanos(), retryPreferredAfter.toNanos(), clock);
    }
  }
}
