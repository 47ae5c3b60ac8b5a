package io.leaf.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.JulCapture;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.LoggerFactory;

/** Request bodies that do not parse are the caller's mistake: INVALID_ARGUMENT, nothing logged. */
@Isolated
class MalformedRequestsTest {

  private static final MethodDescriptor.Marshaller<byte[]> RAW =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  private InProcessLeaf leaf;
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);

  /** grpc-java logs through java.util.logging, not SLF4J. */
  private JulCapture jul;

  @BeforeEach
  void setUp() throws Exception {
    leaf = new InProcessLeaf(new MemorySegmentStore());
    logged.start();
    root.addAppender(logged);
    jul = JulCapture.start();
  }

  @AfterEach
  void tearDown() throws Exception {
    jul.close();
    root.detachAppender(logged);
    leaf.close();
  }

  private void assertNothingLogged() {
    assertTrue(
        logged.list.stream().noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.WARN)),
        "nothing logged: " + logged.list);
    assertEquals(List.of(), jul.records(), "nothing logged by grpc-java");
  }

  private Status call(MethodDescriptor<?, ?> method, byte[] body) {
    MethodDescriptor<byte[], byte[]> raw = method.toBuilder(RAW, RAW).build();
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                ClientCalls.blockingUnaryCall(
                    leaf.channel,
                    raw,
                    CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS),
                    body));
    return e.getStatus();
  }

  @Test
  void nextId_invalidUtf8InBizTag_invalidArgumentNamingTheProblem() {
    // field 1 (biz_tag), length 2, bytes C3 28: not UTF-8
    Status s = call(LeafServiceGrpc.getNextIdMethod(), new byte[] {0x0A, 0x02, (byte) 0xC3, 0x28});
    assertEquals(Status.Code.INVALID_ARGUMENT, s.getCode(), s.toString());
    assertTrue(
        s.getDescription().startsWith("request is not a valid leaf.v1.NextIdRequest:"),
        s.getDescription());
    assertTrue(s.getDescription().contains("UTF-8"), s.getDescription());
    assertNothingLogged();
  }

  @Test
  void createTag_truncatedBody_invalidArgument() {
    // field 1, length 10, but only 2 bytes follow
    Status s = call(LeafServiceGrpc.getCreateTagMethod(), new byte[] {0x0A, 0x0A, 0x61, 0x62});
    assertEquals(Status.Code.INVALID_ARGUMENT, s.getCode(), s.toString());
    assertTrue(
        s.getDescription().startsWith("request is not a valid leaf.v1.CreateTagRequest:"),
        s.getDescription());
  }

  @Test
  void nextId_wellFormedAfterMalformed_servedAsUsual() {
    call(LeafServiceGrpc.getNextIdMethod(), new byte[] {(byte) 0xFF, (byte) 0xFF});
    leaf.blocking.createTag(CreateTagRequest.newBuilder().setBizTag("ok").build());
    assertEquals(
        1, leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag("ok").build()).getId());
  }
}
