package io.leaf.server.ordering;

import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.leaf.v1.IdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextIdResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Sends a call on to a STRICT tag's owner, one hop: marked as forwarded (the owner never sends it
 * further), with the caller's deadline (or {@code maxWait}) and {@code authorization} header; the
 * owner's answer, or UNAVAILABLE naming the owner, goes back to the caller.
 *
 * <p>Thread-safe. One channel per owner address, at most {@link #MAX_CHANNELS} (the oldest beyond
 * is shut down). Streams relay with flow control: a message more each time the caller is ready.
 */
final class Forwarder implements AutoCloseable {

  static final int MAX_CHANNELS = 64;

  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final Duration maxWait;
  private final Consumer<String> forwardedCall;
  private final Function<String, ManagedChannel> connect;
  private final ForwardBatcher batcher;

  /**
   * @param maxBatch the largest NextIdBatch the owner accepts ({@code --max-batch})
   * @param maxWaiting NextId calls that may wait for a batch at once ({@code
   *     --max-held-strict-calls}); 0: each goes alone
   * @param forwardedCall told the tag of each call forwarded (for the metrics)
   * @param connect a channel to an advertised address ({@link #plaintext} or {@link #over} in
   *     production)
   */
  Forwarder(
      Duration maxWait,
      int maxBatch,
      int maxWaiting,
      Consumer<String> forwardedCall,
      Function<String, ManagedChannel> connect) {
    this.maxWait = maxWait;
    this.forwardedCall = forwardedCall;
    this.connect = connect;
    this.batcher =
        new ForwardBatcher(this, Math.min(maxBatch, ForwardBatcher.MAX_BATCH), maxWait, maxWaiting);
  }

  /**
   * The next ID of {@code bizTag} from {@code owner}: NextId calls forwarded to one owner at once
   * go as one NextIdBatch ({@link ForwardBatcher}), with the caller's deadline and token.
   */
  CompletableFuture<Long> nextId(String owner, String bizTag, Runnable unreachable) {
    forwardedCall.accept(bizTag);
    return batcher.nextId(
        owner,
        bizTag,
        Context.current().getDeadline(),
        ForwardedMark.CALLER_AUTHORIZATION.get(),
        unreachable);
  }

  /**
   * A plaintext Netty channel to {@code HOST:PORT}. Its callbacks run on the transport's thread (a
   * direct executor): each only relays an answer to the caller's call, which never blocks.
   */
  static ManagedChannel plaintext(String address) {
    return NettyChannelBuilder.forTarget(address).usePlaintext().directExecutor().build();
  }

  /** As {@link #plaintext}, over TLS with {@code credentials} (the owner's host name checked). */
  public static Function<String, ManagedChannel> over(ChannelCredentials credentials) {
    return address -> NettyChannelBuilder.forTarget(address, credentials).directExecutor().build();
  }

  /** Sends a unary call to {@code owner}; {@code unreachable} hears of a transport failure. */
  <Q, R> void unary(
      MethodDescriptor<Q, R> method,
      String owner,
      String bizTag,
      Q request,
      StreamObserver<R> out,
      Runnable unreachable) {
    ClientCall<Q, R> call = callOrTell(method, owner, bizTag, out);
    if (call == null) {
      return;
    }
    ClientCalls.asyncUnaryCall(call, request, relay(out, owner, bizTag, unreachable, null));
    // Set once the call has started: a late observer runs a handler at once when its event
    // already happened, and a call cancelled before its start cannot start.
    ((ServerCallStreamObserver<R>) out)
        .setOnCancelHandler(() -> call.cancel("the caller cancelled", null));
  }

  /** Sends a server-streaming call to {@code owner}, one message at a time as the caller reads. */
  <Q, R> void streaming(
      MethodDescriptor<Q, R> method,
      String owner,
      String bizTag,
      Q request,
      StreamObserver<R> out,
      Runnable unreachable) {
    ServerCallStreamObserver<R> server = (ServerCallStreamObserver<R>) out;
    ClientCall<Q, R> call = callOrTell(method, owner, bizTag, out);
    if (call == null) {
      return;
    }
    ClientCalls.asyncServerStreamingCall(
        call, request, relay(out, owner, bizTag, unreachable, server));
    // Once started, as in unary(); then asked for a message more each time the caller is ready.
    server.setOnCancelHandler(() -> call.cancel("the caller cancelled", null));
    server.setOnReadyHandler(() -> call.request(1));
  }

  /** A unary call to {@code owner} whose answer completes the future (calls from HTTP). */
  <Q, R> CompletableFuture<R> call(
      MethodDescriptor<Q, R> method, String owner, String bizTag, Q request, Runnable unreachable) {
    CompletableFuture<R> result = new CompletableFuture<>();
    ClientCall<Q, R> call;
    try {
      call = newCall(method, owner, bizTag);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(OwnerFailures.unusable(e, owner, bizTag));
    }
    result.whenComplete(
        (v, e) -> {
          if (result.isCancelled()) {
            call.cancel("the caller cancelled", null);
          }
        });
    ClientCalls.asyncUnaryCall(
        call,
        request,
        relay(
            new StreamObserver<R>() {
              @Override
              public void onNext(R value) {
                result.complete(value);
              }

              @Override
              public void onError(Throwable t) {
                result.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {}
            },
            owner,
            bizTag,
            unreachable,
            null));
    return result;
  }

  /**
   * One NextIdBatch to {@code owner} on behalf of several callers, every message collected: with
   * {@code deadline} and the callers' {@code authorization} (null: none), out of any one caller's
   * context (its end does not cancel the batch).
   */
  CompletableFuture<List<IdBatch>> batch(
      String owner,
      String bizTag,
      NextIdBatchRequest request,
      Deadline deadline,
      String authorization) {
    CompletableFuture<List<IdBatch>> result = new CompletableFuture<>();
    List<IdBatch> got = new ArrayList<>();
    StreamObserver<IdBatch> collect =
        new StreamObserver<>() {
          @Override
          public void onNext(IdBatch value) {
            got.add(value);
          }

          @Override
          public void onError(Throwable t) {
            result.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
            result.complete(got);
          }
        };
    Context caller = Context.ROOT.attach();
    try {
      ClientCalls.asyncServerStreamingCall(
          newCall(LeafServiceGrpc.getNextIdBatchMethod(), owner, bizTag, deadline, authorization),
          request,
          collect);
    } finally {
      Context.ROOT.detach(caller);
    }
    return result;
  }

  /** One NextId to {@code owner}, as {@link #batch} but for one caller (a batch refused). */
  CompletableFuture<Long> single(
      String owner, String bizTag, Deadline deadline, String authorization) {
    CompletableFuture<Long> result = new CompletableFuture<>();
    Context caller = Context.ROOT.attach();
    try {
      ClientCalls.asyncUnaryCall(
          newCall(LeafServiceGrpc.getNextIdMethod(), owner, bizTag, deadline, authorization),
          NextIdRequest.newBuilder().setBizTag(bizTag).build(),
          new StreamObserver<NextIdResponse>() {
            @Override
            public void onNext(NextIdResponse value) {
              result.complete(value.getId());
            }

            @Override
            public void onError(Throwable t) {
              result.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {}
          });
    } finally {
      Context.ROOT.detach(caller);
    }
    return result;
  }

  /** A call to {@code owner}, or null when none can be made: {@code out} is then told why. */
  private <Q, R> ClientCall<Q, R> callOrTell(
      MethodDescriptor<Q, R> method, String owner, String bizTag, StreamObserver<R> out) {
    try {
      return newCall(method, owner, bizTag);
    } catch (RuntimeException e) {
      out.onError(OwnerFailures.unusable(e, owner, bizTag));
      return null;
    }
  }

  private <Q, R> ClientCall<Q, R> newCall(
      MethodDescriptor<Q, R> method, String owner, String bizTag) {
    forwardedCall.accept(bizTag);
    return newCall(
        method,
        owner,
        bizTag,
        Context.current().getDeadline(),
        ForwardedMark.CALLER_AUTHORIZATION.get());
  }

  private <Q, R> ClientCall<Q, R> newCall(
      MethodDescriptor<Q, R> method, String owner, String bizTag, Deadline deadline, String auth) {
    CallOptions options =
        CallOptions.DEFAULT.withDeadline(
            deadline != null ? deadline : Deadline.after(maxWait.toNanos(), TimeUnit.NANOSECONDS));
    Metadata headers = new Metadata();
    headers.put(ForwardedMark.HEADER, "1");
    if (auth != null) {
      headers.put(ForwardedMark.AUTHORIZATION, auth);
    }
    // A call of its own, not a child of the caller's context: the cancel handler ends it.
    return ClientInterceptors.intercept(
            channel(owner), MetadataUtils.newAttachHeadersInterceptor(headers))
        .newCall(method, options);
  }

  private <Q, R> ClientResponseObserver<Q, R> relay(
      StreamObserver<R> out,
      String owner,
      String bizTag,
      Runnable unreachable,
      ServerCallStreamObserver<R> flow) {
    return new ClientResponseObserver<>() {
      private ClientCallStreamObserver<Q> upstream;

      @Override
      public void beforeStart(ClientCallStreamObserver<Q> requestStream) {
        upstream = requestStream;
        if (flow != null) {
          requestStream.disableAutoRequestWithInitial(1); // more as the caller is ready
        }
      }

      @Override
      public void onNext(R value) {
        out.onNext(value);
        if (flow != null && flow.isReady()) {
          upstream.request(1);
        }
      }

      @Override
      public void onError(Throwable t) {
        if (Status.fromThrowable(t).getCode() == Status.Code.UNAVAILABLE) {
          unreachable.run();
        }
        out.onError(OwnerFailures.told(t, owner, bizTag));
      }

      @Override
      public void onCompleted() {
        out.onCompleted();
      }
    };
  }

  private ManagedChannel channel(String owner) {
    ManagedChannel ch = channels.get(owner);
    if (ch != null) {
      return ch;
    }
    if (channels.size() >= MAX_CHANNELS) {
      String victim = channels.keySet().iterator().next();
      ManagedChannel old = channels.remove(victim);
      if (old != null) {
        old.shutdown();
      }
    }
    return channels.computeIfAbsent(owner, connect);
  }

  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
  }
}
