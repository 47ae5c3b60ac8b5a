package io.leaf.server.security;

import static io.leaf.server.testing.TokenFiles.hash;
import static io.leaf.server.testing.TokenFiles.line;
import static io.leaf.server.testing.TokenFiles.secret;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.google.common.base.Ticker;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.testing.Pace;
import io.leaf.server.testing.Poll;
import io.leaf.server.threads.ServerThreads;
import io.leaf.server.wiring.LeafServerBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.LoggerFactory;

/** The token file at start and while running, as the server's configuration sets it up. */
@Isolated
class TokenFileRefreshTest {

  @TempDir Path dir;

  private ServerConfig config(Path file, String... more) {
    String[] flags = new String[more.length + 4];
    flags[0] = "--tokens-file";
    flags[1] = file.toString();
    flags[2] = "--tokens-refresh";
    flags[3] = "50ms";
    System.arraycopy(more, 0, flags, 4, more.length);
    return ServerConfig.parse(flags, env -> null);
  }

  private static boolean admitted(ServerTokens tokens, String name) {
    return tokens.access().admit("Bearer " + secret(name), Role.ISSUE, "NextId").caller() != null;
  }

  @Test
  void from_fileListingNoToken_refusedAtStartWithOneLine() throws Exception {
    for (String content : new String[] {"", "\n\n", "# only a comment\n   \n"}) {
      Path file = dir.resolve("empty-tokens");
      Files.writeString(file, content);
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  ServerTokens.from(
                          config(file).ops().tokens(),
                          Ticker.systemTicker(),
                          TokenMeters.NONE,
                          ServerThreads::tokensRefresh)
                      .close(),
              "a file of no token would refuse every call: " + content.replace("\n", "\\n"));
      assertEquals(
          "--tokens-file "
              + file
              + " lists no token, so every call would be refused;"
              + " list at least one (NAME HASH ROLE TAGS) or leave the flag out",
          e.getMessage());
    }
  }

  @Test
  void refresh_changedFile_newTokensServeBrokenFileLoggedPreviousKept() throws Exception {
    Path file = dir.resolve("tokens");
    Files.writeString(file, line("first", "issue", "*", null));
    Logger logger = (Logger) LoggerFactory.getLogger(TokensFile.class);
    ListAppender<ILoggingEvent> captured = new ListAppender<>();
    captured.start();
    logger.addAppender(captured);
    try (ServerTokens tokens =
        ServerTokens.from(
            config(file).ops().tokens(),
            Ticker.systemTicker(),
            TokenMeters.NONE,
            ServerThreads::tokensRefresh)) {
      assertTrue(admitted(tokens, "first"));
      Files.writeString(file, line("second", "issue", "*", null));
      assertTrue(
          Poll.until(() -> admitted(tokens, "second"), Duration.ofSeconds(10)),
          "the changed file is read again while running");
      assertFalse(admitted(tokens, "first"), "a token taken out of the file is refused");

      String broken = line("third", "issue", "*", null).replace("sha256:", "sha1:");
      Files.writeString(file, broken);
      assertTrue(
          Poll.until(
              () -> captured.list.stream().anyMatch(e -> e.getLevel() == Level.WARN),
              Duration.ofSeconds(10)),
          "the broken file is reported");
      assertTrue(admitted(tokens, "second"), "the previous tokens keep serving");
      assertFalse(admitted(tokens, "third"));
      ILoggingEvent warning =
          captured.list.stream().filter(e -> e.getLevel() == Level.WARN).findFirst().orElseThrow();
      String message = warning.getFormattedMessage();
      assertTrue(message.contains("line 1: HASH of third"), message);
      assertFalse(message.contains(hash(secret("third")).substring(7)), "no hash: " + message);
      assertFalse(message.contains(secret("third")), message);
      Pace.holdMillis(200); // deliberate: time for a second (wrong) warning to appear
      assertEquals(
          1,
          captured.list.stream().filter(e -> e.getLevel() == Level.WARN).count(),
          "one warning per change, not one per read");
    } finally {
      logger.detachAppender(captured);
    }
  }

  @Test
  void start_invalidFile_oneLineNamingFileAndLine() throws Exception {
    Path file = dir.resolve("tokens");
    Files.writeString(file, line("a", "issue", "*", null) + line("b", "owner", "*", null));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LeafServerBuilder.forConfig(config(file)).build());
    assertEquals(
        "--tokens-file " + file + " line 2: ROLE of b must be issue, reserve or admin",
        e.getMessage());
    IllegalArgumentException missing =
        assertThrows(
            IllegalArgumentException.class,
            () -> LeafServerBuilder.forConfig(config(dir.resolve("none"))).build());
    assertEquals(
        "--tokens-file " + dir.resolve("none") + " is not a readable file", missing.getMessage());
  }

  @Test
  void parse_tokensFileWithAdminToken_refusedAtStart() throws Exception {
    Path file = dir.resolve("tokens");
    Files.writeString(file, line("a", "admin", "*", null));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> config(file, "--admin-token", "x-secret"));
    assertTrue(
        e.getMessage().startsWith("--tokens-file replaces --admin-token and" + " --client-token"),
        e.getMessage());
  }

  @Test
  void flags_twoTokens_theSpecialCase() {
    TokenAccess access =
        new TokenAccess(() -> TokenRegistry.ofFlags("admin-x", "client-x", TokenMeters.NONE));
    Caller admin = access.admit("Bearer admin-x", Role.ADMIN, "CreateTag").caller();
    assertNotNull(admin);
    assertTrue(admin.scope().all());
    Caller client = access.admit("Bearer client-x", Role.RESERVE, "ReserveIds").caller();
    assertEquals(TokenRegistry.CLIENT_TOKEN, client.name());
    assertNull(client.bucket(), "no rate");
    assertEquals(
        TokenAccess.Kind.PERMISSION_DENIED,
        access.admit("Bearer client-x", Role.ADMIN, "CreateTag").refusal().kind());
    assertEquals(
        TokenAccess.Kind.UNAUTHENTICATED,
        access.admit(null, Role.ISSUE, "NextId").refusal().kind());
    TokenAccess open =
        new TokenAccess(() -> TokenRegistry.ofFlags("admin-x", null, TokenMeters.NONE));
    assertEquals(
        Role.RESERVE,
        open.admit(null, Role.RESERVE, "ReserveIds").caller().role(),
        "without a client token, ID calls are open");
  }
}
