package io.leaf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client of two targets moves its formatted-ID calls too, with each tag's own token on whichever
 * target answers, and never moves CreateTag or SetFormat (either would write to the other target's
 * database).
 */
class LeafClientFailoverFormatTest {

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  /** A {@link FakeFormatService} behind a server that records each call's authorization. */
  private static final class Target implements AutoCloseable {
    final FakeFormatService service = new FakeFormatService();
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    final String name = InProcessServerBuilder.generateName();
    final Server server;

    Target() throws Exception {
      ServerInterceptor record =
          new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(
                ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
              authorizations.add(String.valueOf(headers.get(AUTHORIZATION)));
              return next.startCall(call, headers);
            }
          };
      server =
          InProcessServerBuilder.forName(name)
              .addService(ServerInterceptors.intercept(service, record))
              .build()
              .start();
    }

    InProcessChannelBuilder channelBuilder() {
      return InProcessChannelBuilder.forName(name);
    }

    @Override
    public void close() throws Exception {
      server.shutdownNow();
      service.close();
    }
  }

  private Target near;
  private Target far;
  private LeafClient client;

  @BeforeEach
  void setUp() throws Exception {
    near = new Target();
    far = new Target();
    client =
        LeafClient.forChannelBuilders(List.of(near.channelBuilder(), far.channelBuilder()))
            .maxAttempts(1)
            .deadline(Duration.ofSeconds(5))
            .failoverAfter(Duration.ofSeconds(2))
            .token("client-secret")
            .tagToken("order", "order-secret")
            .clock(() -> 0L)
            .build();
  }

  @AfterEach
  void tearDown() throws Exception {
    client.close();
    near.close();
    far.close();
  }

  @Test
  void formattedCalls_failOver_withTheTagsOwnTokenOnTheOtherTarget() {
    near.service.failTimes(Status.UNAVAILABLE, 1);

    assertEquals("ORD-0001", client.nextFormattedId("order.eu"));
    assertEquals(List.of("ORD-0002", "ORD-0003"), client.nextFormattedIds("order.eu", 2));
    client.parseFormattedId("other", "ORD-0001");

    assertEquals(1, near.service.calls(), "marked down after one UNAVAILABLE, then passed over");
    assertEquals(3, far.service.calls());
    assertEquals(List.of("Bearer order-secret"), near.authorizations);
    assertEquals(
        List.of("Bearer order-secret", "Bearer order-secret", "Bearer client-secret"),
        far.authorizations,
        "each tag's own token, else the client's, on the other target too");
  }

  @Test
  void formattedStream_failedOnTheFirstTarget_isReadWholeFromTheNext() {
    near.service.failTimes(Status.UNAVAILABLE, 1);

    assertEquals(List.of("ORD-0001", "ORD-0002", "ORD-0003"), client.nextFormattedIds("order", 3));
    assertEquals(1, far.service.calls());
  }

  @Test
  void setFormatAndCreateTag_neverMove_evenWhileTheFirstIsKnownDown() {
    near.service.failTimes(Status.UNAVAILABLE, 3);
    client.nextFormattedId("order");
    assertEquals(1, far.service.calls(), "the first target is now known down");

    assertThrows(
        LeafUnavailableException.class,
        () -> client.setFormat("order", IdFormat.of("ORD-{seq:4}")));
    assertThrows(
        LeafUnavailableException.class,
        () -> client.createTag("order", 0, 0, null, IdFormat.of("ORD-{seq:4}")));

    assertEquals(1, far.service.calls(), "a tag's definition is written only on the first target");
    assertEquals(3, near.service.calls());
  }

  @Test
  void answersOtherThanUnavailable_doNotMoveFormattedCalls() {
    near.service.failTimes(Status.FAILED_PRECONDITION.withDescription("tag has no format"), 1);

    assertThrows(FailedPreconditionException.class, () -> client.nextFormattedId("order"));

    assertEquals(0, far.service.calls());
    assertEquals("ORD-0001", client.nextFormattedId("order"), "the first target still preferred");
  }
}
