package io.leaf.server.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.Marshaller;
import io.grpc.MethodDescriptor.PrototypeMarshaller;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a request body that does not parse (malformed protobuf, invalid UTF-8 in a string field)
 * end as INVALID_ARGUMENT with the parser's reason, where grpc-java would answer UNKNOWN and log a
 * stack trace: a client's mistake is neither the server's failure nor worth a log line.
 *
 * <p>How: each method's request marshaller parses leniently, turning a body that does not parse
 * into the request's default message marked with an unknown field that carries the reason; an
 * interceptor answers a marked request before the handler sees it. A well-formed request costs one
 * check of its (empty) unknown fields.
 */
public final class MalformedRequests {

  /** Field number of the mark: the highest protobuf allows, never used by leaf.proto. */
  static final int MARK = (1 << 29) - 1;

  private MalformedRequests() {}

  /** {@code service} with lenient request parsing and malformed requests answered as above. */
  public static ServerServiceDefinition guard(ServerServiceDefinition service) {
    ServiceDescriptor old = service.getServiceDescriptor();
    List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
    for (ServerMethodDefinition<?, ?> m : service.getMethods()) {
      methods.add(lenient(m));
    }
    ServiceDescriptor.Builder descriptor =
        ServiceDescriptor.newBuilder(old.getName()).setSchemaDescriptor(old.getSchemaDescriptor());
    methods.forEach(m -> descriptor.addMethod(m.getMethodDescriptor()));
    ServerServiceDefinition.Builder out = ServerServiceDefinition.builder(descriptor.build());
    methods.forEach(out::addMethod);
    return ServerInterceptors.intercept(out.build(), new Answer());
  }

  private static <Q, R> ServerMethodDefinition<Q, R> lenient(ServerMethodDefinition<Q, R> m) {
    MethodDescriptor<Q, R> method = m.getMethodDescriptor();
    Marshaller<Q> strict = method.getRequestMarshaller();
    if (!(strict instanceof PrototypeMarshaller<Q> proto)
        || !(proto.getMessagePrototype() instanceof Message prototype)) {
      return m;
    }
    Marshaller<Q> lenient =
        new Marshaller<>() {
          @Override
          public InputStream stream(Q value) {
            return strict.stream(value);
          }

          @Override
          public Q parse(InputStream body) {
            try {
              return strict.parse(body);
            } catch (StatusRuntimeException e) {
              Throwable why = e.getCause() != null ? e.getCause() : e;
              @SuppressWarnings("unchecked")
              Q marked =
                  (Q)
                      mark(
                          prototype,
                          "request is not a valid "
                              + prototype.getDescriptorForType().getFullName()
                              + ": "
                              + why.getMessage());
              return marked;
            }
          }
        };
    return ServerMethodDefinition.create(
        method.toBuilder(lenient, method.getResponseMarshaller()).build(),
        m.getServerCallHandler());
  }

  static Message mark(Message prototype, String reason) {
    UnknownFieldSet.Field field =
        UnknownFieldSet.Field.newBuilder()
            .addLengthDelimited(ByteString.copyFromUtf8(reason))
            .build();
    return prototype.toBuilder()
        .setUnknownFields(UnknownFieldSet.newBuilder().addField(MARK, field).build())
        .build();
  }

  /** The reason a marked request carries; null for a request that parsed. */
  static String reason(Object request) {
    if (!(request instanceof Message m)) {
      return null;
    }
    UnknownFieldSet unknown = m.getUnknownFields();
    if (!unknown.hasField(MARK)) {
      return null;
    }
    List<ByteString> values = unknown.getField(MARK).getLengthDelimitedList();
    return values.isEmpty() ? "request is malformed" : values.get(0).toStringUtf8();
  }

  /** Answers a marked request with INVALID_ARGUMENT; the handler never sees it. */
  private static final class Answer implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      ServerCall.Listener<Q> delegate = next.startCall(call, headers);
      return new SimpleForwardingServerCallListener<>(delegate) {
        private boolean answered;

        @Override
        public void onMessage(Q message) {
          if (answered) {
            // A unary call asks for two messages: a second one, buffered before the close,
            // must not close the call again.
            return;
          }
          String reason = reason(message);
          if (reason == null) {
            super.onMessage(message);
            return;
          }
          answered = true;
          call.close(Status.INVALID_ARGUMENT.withDescription(reason), new Metadata());
        }

        @Override
        public void onHalfClose() {
          if (!answered) {
            super.onHalfClose();
          }
        }

        @Override
        public void onReady() {
          if (!answered) {
            super.onReady();
          }
        }
      };
    }
  }
}
