package io.leaf.client;

import io.grpc.CallCredentials;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.TlsChannelCredentials;
import io.leaf.v1.IssuedRange;
import io.leaf.v1.SnowflakeIdParts;
import io.leaf.v1.Tag;
import io.leaf.v1.TagStatus;
import io.leaf.v1.Uuid;
import io.leaf.v1.WorkerStatus;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A blocking client for one Leaf service: each method is one RPC with the client's deadline, and
 * every failure is a {@link LeafException} subclass chosen by the gRPC status code.
 *
 * <p>Thread-safe; share one instance. A client built from a target or a channel builder owns its
 * channel, which retries UNAVAILABLE with gRPC's own retry policy (every method but CreateTag);
 * {@link #close()} shuts that channel down. A client built on an existing channel uses the channel
 * as it is and leaves it open. A client of several targets ({@link #forTargets}) prefers the first
 * and fails over to the next (see {@link Targets}).
 */
public final class LeafClient implements AutoCloseable {

  private final Targets targets;
  private final LeafRpcs rpcs;

  private LeafClient(Targets targets) {
    this.targets = targets;
    this.rpcs = new LeafRpcs(targets);
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
   * A client of several servers in order of preference (say this region's, then the next region's):
   * calls go to the first one that answers, move on to the next when it is UNAVAILABLE or silent
   * for {@link Builder#failoverAfter}, and move back once {@link Builder#retryPreferredAfter} has
   * passed and it answers again. CreateTag and SetFormat never move: they always go to the first
   * target, and fail while it is down.
   */
  public static Builder forTargets(List<String> targets) {
    return new Builder(ClientSettings.nonEmpty(targets, "targets", "target"), null, null);
  }

  /** As {@link #forTargets}, on channels built from {@code builders} (any transport). */
  public static Builder forChannelBuilders(List<? extends ManagedChannelBuilder<?>> builders) {
    return new Builder(null, ClientSettings.nonEmpty(builders, "builders", "builder"), null);
  }

  /** One ID of {@code bizTag}. */
  public long nextId(String bizTag) {
    return rpcs.nextId(bizTag);
  }

  /**
   * {@code count} IDs of {@code bizTag} from one NextIdBatch stream, in the order the server sent
   * them (increasing). The deadline covers the whole stream.
   */
  public long[] nextIds(String bizTag, int count) {
    return rpcs.nextIds(bizTag, count);
  }

  /** One time-ordered snowflake ID (UNAVAILABLE while the server holds no worker lease). */
  public long nextSnowflakeId() {
    return rpcs.nextSnowflakeId();
  }

  /** {@code count} snowflake IDs from one stream, increasing; the deadline covers it all. */
  public long[] nextSnowflakeIds(int count) {
    return rpcs.nextSnowflakeIds(count);
  }

  /** The parts of a snowflake ID in the server's layout (time, worker ID, sequence). */
  public SnowflakeIdParts decode(long id) {
    return rpcs.decode(id);
  }

  /** One version 7 UUID, never two servers' (its ULID too); fails as nextSnowflakeId does. */
  public Uuid nextUuid() {
    return rpcs.nextUuid();
  }

  /** The server's worker lease and snowflake layout. */
  public WorkerStatus getWorker() {
    return rpcs.getWorker();
  }

  LeafRpcs rpcs() { // for LocalSnowflakeIds
    return rpcs;
  }

  /**
   * Creates {@code bizTag}. {@code maxId} 0 means the server's default (1), {@code step} 0 its
   * default (200); a null description is stored as none.
   */
  public Tag createTag(String bizTag, long maxId, int step, String description) {
    return createTag(bizTag, maxId, step, description, null);
  }

  /** As {@link #createTag(String, long, int, String)}, numbers written in {@code format}. */
  public Tag createTag(String bizTag, long maxId, int step, String description, IdFormat format) {
    return rpcs.createTag(bizTag, maxId, step, description, format);
  }

  /**
   * Sets or changes the tag's format (admin token). INVALID_ARGUMENT for a bad format, a reset the
   * pattern cannot show, or a change that could repeat a number the tag issued before.
   */
  public Tag setFormat(String bizTag, IdFormat format) {
    return rpcs.setFormat(bizTag, format);
  }

  /**
   * The tag's next formatted number, e.g. {@code ORD-20261126-0004577}.
   *
   * @throws FailedPreconditionException the tag has no format, or its key differs from the server's
   * @throws OutOfRangeException the period's numbers pass the sequence's width
   */
  public String nextFormattedId(String bizTag) {
    return rpcs.nextFormattedId(bizTag);
  }

  /**
   * {@code count} formatted numbers of {@code bizTag} from one NextFormattedIdBatch stream, in the
   * order the server sent them; unmodifiable. Same errors as {@link #nextFormattedId}; the deadline
   * covers the whole stream.
   */
  public List<String> nextFormattedIds(String bizTag, int count) {
    return rpcs.nextFormattedIds(bizTag, count);
  }

  /**
   * Reads a formatted number of {@code bizTag} back (INVALID_ARGUMENT when it does not match the
   * tag's format); an opaque number's sequence needs the admin token, else it is empty.
   */
  public FormattedIdParts parseFormattedId(String bizTag, String value) {
    return rpcs.parseFormattedId(bizTag, value);
  }

  /** Sets the tag's step; the server's next segment load uses it. */
  public Tag updateStep(String bizTag, int step) {
    return rpcs.updateStep(bizTag, step);
  }

  /** Makes the server load the tag's segment now (idempotent) and returns its status. */
  public TagStatus initCache(String bizTag) {
    return rpcs.initCache(bizTag);
  }

  /** The next value of {@code key}'s own sequence (from 1) on a STRICT tag; key: 1-128 bytes. */
  public long nextSequence(String bizTag, String key) {
    return rpcs.nextSequence(bizTag, key);
  }

  /** The tag's database row and the server's cached segments. */
  public TagStatus getTag(String bizTag) {
    return rpcs.getTag(bizTag);
  }

  /**
   * Which server took the range that holds {@code id} of {@code bizTag}, when, and how ({@code
   * kind}: {@code segment}, {@code reserve} or {@code returned}): the server's ledger.
   *
   * @throws TagNotFoundException (NOT_FOUND) no recorded range holds the ID
   * @throws FailedPreconditionException the server runs with {@code --ledger off}
   */
  public IssuedRange whoIssued(String bizTag, long id) {
    return rpcs.whoIssued(bizTag, id);
  }

  /**
   * The sequence value an ID of the SCATTERED tag {@code bizTag} was made from (for whoIssued).
   *
   * @throws TagNotFoundException (NOT_FOUND) the tag does not exist
   * @throws FailedPreconditionException the tag is not SCATTERED
   * @throws InvalidArgumentException {@code id} is not positive
   */
  public long decodeScatteredId(String bizTag, long id) {
    return rpcs.decodeScatteredId(bizTag, id);
  }

  /**
   * {@code count} IDs of {@code bizTag} as at most 3 ascending, disjoint ranges the caller owns, in
   * one small reply whatever the count (up to the server's {@code --max-batch}).
   *
   * @throws LeafException typed by the status; INTERNAL if the reply breaks the contract
   */
  public List<IdRange> reserveIds(String bizTag, int count) {
    return rpcs.reserveIds(bizTag, count);
  }

  /**
   * The channel calls go over now, for the server's other services (e.g. grpc.health.v1); calls on
   * it carry none of the client's credentials or deadlines, and the client still closes it.
   */
  public Channel channel() {
    return targets.current();
  }

  /** Shuts down the channels if this client built them, waiting up to five seconds. */
  @Override
  public void close() {
    targets.close();
  }

  /** Configures a {@link LeafClient}; bad values are rejected at once. */
  public static final class Builder {

    private final ClientSettings settings;

    private Builder(
        List<String> targets,
        List<? extends ManagedChannelBuilder<?>> channelBuilders,
        ManagedChannel channel) {
      this.settings = new ClientSettings(targets, channelBuilders, channel);
    }

    /**
     * With several targets: the longest one attempt waits for an answer while another target
     * remains, before the call moves on (default 2 s). An UNAVAILABLE answer moves it at once.
     */
    public Builder failoverAfter(Duration failoverAfter) {
      settings.failoverAfter = ClientSettings.positive(failoverAfter, "failoverAfter");
      return this;
    }

    /**
     * With several targets: how long calls pass over a target found unavailable before they try it
     * first again (default 30 s).
     */
    public Builder retryPreferredAfter(Duration retryPreferredAfter) {
      settings.retryPreferredAfter =
          ClientSettings.positive(retryPreferredAfter, "retryPreferredAfter");
      return this;
    }

    /**
     * ID calls on a STRICT tag go straight to the owner a server names, with this client's
     * credentials (default off; targets only): for servers whose advertised addresses you trust.
     * {@link LeafClient#nextSequence} always goes to the targets.
     */
    public Builder callOwners(boolean callOwners) {
      settings.callOwners = callOwners;
      return this;
    }

    /** The clock of {@link #retryPreferredAfter}, in nanoseconds (tests). */
    Builder clock(LongSupplier clock) {
      settings.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The deadline of every call, retries included (default 10 s). */
    public Builder deadline(Duration deadline) {
      settings.deadline = ClientSettings.positive(deadline, "deadline");
      return this;
    }

    /** Plaintext (the default). Only with {@link #forTarget} or {@link #forTargets}. */
    public Builder usePlaintext() {
      return credentials(InsecureChannelCredentials.create());
    }

    /** TLS, the JDK's trust store; only with {@link #forTarget} or {@link #forTargets}. */
    public Builder useTls() {
      return credentials(TlsChannelCredentials.create());
    }

    /**
     * Any channel credentials, e.g. {@code TlsChannelCredentials.newBuilder().trustManager(caPem)}.
     * Only with {@link #forTarget} or {@link #forTargets}.
     */
    public Builder credentials(ChannelCredentials credentials) {
      settings.credentials = Objects.requireNonNull(credentials, "credentials");
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
     * Sends {@code token} instead on the calls of every tag that starts with {@code tagPrefix} (a
     * plain prefix: {@code "order"} covers {@code order}, {@code order.eu} and {@code orders}; the
     * longest matching prefix wins): for a server whose {@code --tokens-file} gives each team its
     * own token. Calls of other tags, and the snowflake calls, send the {@link #token} (if any).
     * Use it with TLS: a token is a password.
     */
    public Builder tagToken(String tagPrefix, String token) {
      settings.tagTokens = settings.tagTokens.with(tagPrefix, token);
      return this;
    }

    /** Any per-call credentials (e.g. {@link BearerToken}); none by default. */
    public Builder callCredentials(CallCredentials callCredentials) {
      settings.callCredentials = Objects.requireNonNull(callCredentials, "callCredentials");
      return this;
    }

    /**
     * Attempts per call when the server answers UNAVAILABLE, the first included (default 4; 1 turns
     * retries off; gRPC caps it at 5); with several targets also the most rounds a call makes over
     * them when every one failed. Not used with {@link #forChannel}.
     */
    public Builder maxAttempts(int maxAttempts) {
      settings.maxAttempts = ClientSettings.attempts(maxAttempts);
      return this;
    }

    public LeafClient build() {
      return new LeafClient(settings.open());
    }
  }
}
