package io.leaf.server.security;

import static io.leaf.server.testing.TokenFiles.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.leaf.server.testing.FakeTicker;
import io.leaf.server.testing.ManualScheduler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.LoggerFactory;

/** A token file that stays unreadable is reported at most once a minute, not every re-read. */
@Isolated
class TokenFileWarningsTest {

  @TempDir Path dir;

  @Test
  void refresh_fileGoneFiveMinutes_warnsOnceAMinute() throws Exception {
    Path file = dir.resolve("tokens");
    Files.writeString(file, line("first", "issue", "*", null));
    FakeTicker ticker = new FakeTicker();
    ManualScheduler scheduler = new ManualScheduler(ticker);
    Logger logger = (Logger) LoggerFactory.getLogger(TokensFile.class);
    ListAppender<ILoggingEvent> captured = new ListAppender<>();
    captured.start();
    logger.addAppender(captured);
    try {
      new TokensFile(file, ticker, TokenMeters.NONE, scheduler, Duration.ofSeconds(10));
      Files.delete(file);
      int reads = 0;
      for (int s = 0; s < 300; s++) {
        ticker.advance(Duration.ofSeconds(1));
        reads += scheduler.runDue();
      }
      List<String> warnings =
          captured.list.stream()
              .filter(e -> e.getLevel() == Level.WARN)
              .map(ILoggingEvent::getFormattedMessage)
              .toList();
      assertEquals(30, reads, "re-read every 10 s");
      assertEquals(
          5,
          warnings.size(),
          "one warning a minute over five minutes of " + reads + " failed re-reads: " + warnings);
      assertTrue(warnings.get(0).contains("is not a readable file"), warnings.get(0));
    } finally {
      logger.detachAppender(captured);
    }
  }
}
