package io.leaf.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import com.google.common.base.Ticker;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.leaf.client.BearerToken;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.config.TokenConfig;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.LeafServiceGrpc.LeafServiceBlockingStub;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.UpdateStepRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.LoggerFactory;

/** Every token case on the in-process transport, and the tokens kept out of every log line. */
@Isolated
class TokenAuthTest {

  private static final String ADMIN = "admin-secret-7f3a";
  private static final String CLIENT = "client-secret-91c2";

  private InProcessLeaf leaf;

  @AfterEach
  void close() throws Exception {
    if (leaf != null) {
      leaf.close();
    }
  }

  private InProcessLeaf start(String adminToken, String clientToken) throws Exception {
    String[] flags =
        clientToken == null
            ? new String[] {"--admin-token", adminToken}
            : new String[] {"--admin-token", adminToken, "--client-token", clientToken};
    TokenConfig tokens = ServerConfig.parse(flags, env -> null).ops().tokens();
    MemorySegmentStore store = new MemorySegmentStore();
    store.createTag("known", 1, 100, "");
    leaf =
        new InProcessLeaf(
            store,
            Ticker.systemTicker(),
            EngineConfig.DEFAULTS,
            List.of(new TokenAuthInterceptor(tokens.adminToken(), tokens.clientToken())),
            flags);
    return leaf;
  }

  private LeafServiceBlockingStub as(String token) {
    return token == null
        ? leaf.blocking
        : leaf.blocking.withCallCredentials(new BearerToken(token));
  }

  private static void create(LeafServiceBlockingStub stub) {
    stub.createTag(CreateTagRequest.newBuilder().setBizTag("new.tag").build());
  }

  private static void nextId(LeafServiceBlockingStub stub) {
    stub.nextId(NextIdRequest.newBuilder().setBizTag("known").build());
  }

  private static void assertStatus(Status.Code expected, Executable call, String why) {
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call, why);
    assertEquals(expected, e.getStatus().getCode(), why + ": " + e.getStatus());
  }

  @Test
  void createTag_noToken_unauthenticated() throws Exception {
    start(ADMIN, null);
    assertStatus(Status.Code.UNAUTHENTICATED, () -> create(as(null)), "no authorization header");
  }

  @Test
  void createTag_wrongToken_permissionDenied() throws Exception {
    start(ADMIN, null);
    assertStatus(Status.Code.PERMISSION_DENIED, () -> create(as("not-the-token")), "wrong token");
  }

  @Test
  void updateStep_clientToken_permissionDenied() throws Exception {
    start(ADMIN, CLIENT);
    assertStatus(
        Status.Code.PERMISSION_DENIED,
        () ->
            as(CLIENT)
                .updateStep(UpdateStepRequest.newBuilder().setBizTag("known").setStep(5).build()),
        "the client token does not grant admin RPCs");
  }

  @Test
  void createTagAndUpdateStep_adminToken_succeed() throws Exception {
    start(ADMIN, null);
    create(as(ADMIN));
    assertEquals(
        7,
        as(ADMIN)
            .updateStep(UpdateStepRequest.newBuilder().setBizTag("new.tag").setStep(7).build())
            .getStep(),
        "UpdateStep with the admin token");
  }

  @Test
  void createTag_nonBearerScheme_unauthenticated() throws Exception {
    start(ADMIN, null);
    io.grpc.Metadata headers = new io.grpc.Metadata();
    headers.put(TokenAuthInterceptor.AUTHORIZATION, "Basic " + ADMIN);
    assertStatus(
        Status.Code.UNAUTHENTICATED,
        () ->
            create(
                leaf.blocking.withInterceptors(
                    io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(headers))),
        "Basic is no bearer");
  }

  @Test
  void nextId_noClientTokenSet_openWithoutToken() throws Exception {
    start(ADMIN, null);
    nextId(as(null));
    nextId(as("anything"));
  }

  @Test
  void nextId_clientTokenSetNoToken_unauthenticated() throws Exception {
    start(ADMIN, CLIENT);
    assertStatus(Status.Code.UNAUTHENTICATED, () -> nextId(as(null)), "client token required");
  }

  @Test
  void nextId_clientTokenSetWrongToken_permissionDenied() throws Exception {
    start(ADMIN, CLIENT);
    assertStatus(Status.Code.PERMISSION_DENIED, () -> nextId(as("wrong")), "wrong client token");
  }

  @Test
  void nextId_clientOrAdminToken_succeeds() throws Exception {
    start(ADMIN, CLIENT);
    nextId(as(CLIENT));
    nextId(as(ADMIN));
  }

  @Test
  void health_clientTokenSet_staysOpen() throws Exception {
    start(ADMIN, CLIENT);
    assertEquals(
        "SERVING",
        HealthGrpc.newBlockingStub(leaf.channel)
            .check(HealthCheckRequest.getDefaultInstance())
            .getStatus()
            .name(),
        "health needs no token");
  }

  @Test
  void logs_everyCaseAndConfig_neverShowTokens() throws Exception {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> captured = new ListAppender<>();
    captured.start();
    root.addAppender(captured);
    ch.qos.logback.classic.Level before = root.getLevel();
    root.setLevel(ch.qos.logback.classic.Level.DEBUG);
    try {
      start(ADMIN, CLIENT);
      assertThrows(StatusRuntimeException.class, () -> create(as(CLIENT)));
      assertThrows(StatusRuntimeException.class, () -> nextId(as("wrong")));
      create(as(ADMIN));
      nextId(as(CLIENT));
      leaf.close();
      leaf = null;
    } finally {
      root.detachAppender(captured);
      root.setLevel(before);
    }
    assertFalse(captured.list.isEmpty(), "the server logged its start and stop");
    for (ILoggingEvent event : captured.list) {
      String line =
          event.getFormattedMessage()
              + (event.getThrowableProxy() == null
                  ? ""
                  : ThrowableProxyUtil.asString(event.getThrowableProxy()));
      assertFalse(line.contains(ADMIN) || line.contains(CLIENT), "a token in the log: " + line);
    }
    assertTrue(
        captured.list.stream()
            .anyMatch(e -> e.getFormattedMessage().contains("admin-token=set client-token=set")),
        "the start line says the tokens are set");
  }

  @Test
  void parse_tokenFile_readsTrimmedAndHidesItInToString(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("admin-token");
    Files.writeString(file, ADMIN + "\n");
    ServerConfig config =
        ServerConfig.parse(new String[] {"--admin-token-file", file.toString()}, env -> null);
    assertEquals(ADMIN, config.ops().tokens().adminToken(), "the file's token without its newline");
    assertFalse(config.toString().contains(ADMIN), config.toString());
    assertFalse(config.ops().toString().contains(ADMIN), config.ops().toString());
  }

  @Test
  void parse_tokenFromEnvironment_isUsed() {
    Function<String, String> env = name -> name.equals("LEAF_ADMIN_TOKEN") ? ADMIN : null;
    assertEquals(
        ADMIN,
        ServerConfig.parse(new String[0], env).ops().tokens().adminToken(),
        "LEAF_ADMIN_TOKEN");
  }

  @Test
  void parse_badToken_messageDoesNotRepeatIt() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ServerConfig.parse(
                    new String[] {"--admin-token", "has space-" + ADMIN}, env -> null));
    assertFalse(e.getMessage().contains(ADMIN), e.getMessage());
  }

  @Test
  void parse_clientTokenWithoutAdminToken_rejected() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ServerConfig.parse(new String[] {"--client-token", CLIENT}, env -> null));
    assertEquals("--client-token needs --admin-token", e.getMessage());
  }
}
