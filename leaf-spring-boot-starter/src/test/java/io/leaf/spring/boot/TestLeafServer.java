package io.leaf.spring.boot;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.StreamObserver;
import io.leaf.v1.FormattedId;
import io.leaf.v1.FormattedIdBatch;
import io.leaf.v1.FormattedIdParts;
import io.leaf.v1.IdRange;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import io.leaf.v1.NextSnowflakeIdRequest;
import io.leaf.v1.ParseFormattedIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.ReservedIds;
import io.leaf.v1.SnowflakeServiceGrpc;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A LeafService on a loopback port (the real transport the starter's channel uses) that answers
 * ReserveIds with one range from 1, 2, 3, … (NextFormattedId with F-1, F-2, … of the same numbers,
 * ParseFormattedId of F-n with sequence n) and the standard health service as a Leaf server does;
 * it records each ReserveIds count and authorization header, can be told to fail, and can name a
 * STRICT tag's owner in the leaf-owner response header as a Leaf server does.
 */
final class TestLeafServer extends LeafServiceGrpc.LeafServiceImplBase implements AutoCloseable {

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private static final Metadata.Key<String> OWNER =
      Metadata.Key.of("leaf-owner", Metadata.ASCII_STRING_MARSHALLER);

  private final AtomicLong next = new AtomicLong(1);
  private final AtomicReference<String> owner = new AtomicReference<>();

  /** What the fake SnowflakeService hands out: increasing, far from the segment IDs. */
  private final AtomicLong snowflake = new AtomicLong(1L << 40);

  private final AtomicReference<Status> failure = new AtomicReference<>();
  private final List<Integer> reserveCounts = new CopyOnWriteArrayList<>();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();
  private final HealthStatusManager health = new HealthStatusManager();
  private final Server server;

  TestLeafServer() throws Exception {
    this(InsecureServerCredentials.create());
  }

  /** A server with {@code credentials}, e.g. TLS. */
  TestLeafServer(ServerCredentials credentials) throws Exception {
    ServerInterceptor recordAuth =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            String auth = headers.get(AUTHORIZATION);
            authorizations.add(auth == null ? "" : auth);
            return next.startCall(call, headers);
          }
        };
    ServerInterceptor nameOwner =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            return next.startCall(
                new SimpleForwardingServerCall<>(call) {
                  @Override
                  public void sendHeaders(Metadata responseHeaders) {
                    String o = owner.get();
                    if (o != null) {
                      responseHeaders.put(OWNER, o);
                    }
                    super.sendHeaders(responseHeaders);
                  }
                },
                headers);
          }
        };
    server =
        Grpc.newServerBuilderForPort(0, credentials)
            .addService(ServerInterceptors.intercept(this, recordAuth, nameOwner))
            .addService(health.getHealthService())
            .addService(
                new SnowflakeServiceGrpc.SnowflakeServiceImplBase() {
                  @Override
                  public void nextSnowflakeId(
                      NextSnowflakeIdRequest req, StreamObserver<NextIdResponse> out) {
                    out.onNext(
                        NextIdResponse.newBuilder().setId(snowflake.getAndIncrement()).build());
                    out.onCompleted();
                  }
                })
            .build()
            .start();
    setReadiness(ServingStatus.SERVING);
    health.setStatus(LeafHealthIndicator.DATABASE, ServingStatus.SERVING);
  }

  /** Hands out IDs (and formatted numbers) from {@code first} on. */
  TestLeafServer startAt(long first) {
    next.set(first);
    return this;
  }

  String target() {
    return "127.0.0.1:" + server.getPort();
  }

  /** The target by the name its TLS certificate carries. */
  String localhostTarget() {
    return "localhost:" + server.getPort();
  }

  /** Names {@code hostPort} as the owner in the leaf-owner header of every LeafService answer. */
  TestLeafServer namingOwner(String hostPort) {
    owner.set(hostPort);
    return this;
  }

  void setReadiness(ServingStatus status) {
    health.setStatus("", status);
    health.setStatus(LeafHealthIndicator.READINESS, status);
  }

  void setDatabase(ServingStatus status) {
    health.setStatus(LeafHealthIndicator.DATABASE, status);
  }

  /** Every ReserveIds and formatted-ID call fails with {@code status} (null: none does). */
  void fail(Status status) {
    failure.set(status);
  }

  List<Integer> reserveCounts() {
    return List.copyOf(reserveCounts);
  }

  /** The authorization header of every LeafService call ("" when absent). */
  List<String> authorizations() {
    return List.copyOf(authorizations);
  }

  @Override
  public void reserveIds(ReserveIdsRequest req, StreamObserver<ReservedIds> out) {
    reserveCounts.add(req.getCount());
    Status f = failure.get();
    if (f != null) {
      out.onError(f.asRuntimeException());
      return;
    }
    long start = next.getAndAdd(req.getCount());
    out.onNext(
        ReservedIds.newBuilder()
            .addRanges(IdRange.newBuilder().setStart(start).setEnd(start + req.getCount()))
            .build());
    out.onCompleted();
  }

  @Override
  public void nextFormattedId(NextIdRequest req, StreamObserver<FormattedId> out) {
    if (!failed(out)) {
      out.onNext(FormattedId.newBuilder().setValue("F-" + next.getAndIncrement()).build());
      out.onCompleted();
    }
  }

  @Override
  public void nextFormattedIdBatch(NextIdBatchRequest req, StreamObserver<FormattedIdBatch> out) {
    if (!failed(out)) {
      FormattedIdBatch.Builder batch = FormattedIdBatch.newBuilder();
      for (int i = 0; i < req.getCount(); i++) {
        batch.addValues("F-" + next.getAndIncrement());
      }
      out.onNext(batch.build());
      out.onCompleted();
    }
  }

  @Override
  public void parseFormattedId(ParseFormattedIdRequest req, StreamObserver<FormattedIdParts> out) {
    if (!failed(out)) {
      out.onNext(
          FormattedIdParts.newBuilder()
              .setCheckValid(true)
              .setSequence(Long.parseLong(req.getValue().substring(2)))
              .build());
      out.onCompleted();
    }
  }

  /** Answers with the failure set by {@link #fail}, if any. */
  private boolean failed(StreamObserver<?> out) {
    Status f = failure.get();
    if (f != null) {
      out.onError(f.asRuntimeException());
    }
    return f != null;
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
  }
}
