package io.leaf.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.leaf.server.testing.ServerProcess;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A port already taken stops the server with one line and exit code 2, like a bad flag. */
@Tag("slow")
class PortInUseStartTest {

  @Test
  @Timeout(120)
  void main_portInUse_oneLineExit2AndDatabaseUntouched(@TempDir Path dir) throws Exception {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(0));
      int port = taken.getLocalPort();
      String url = "jdbc:h2:file:" + dir.resolve("leaf").toAbsolutePath();

      try (ServerProcess server =
          ServerProcess.start("--port", String.valueOf(port), "--db-url", url)) {
        Integer exit = server.awaitExit(60, TimeUnit.SECONDS);

        assertNotNull(exit, "the server must exit:\n" + server.output());
        assertEquals(2, exit, server.output());
        List<String> lines = server.lines();
        assertEquals(
            List.of("leaf-server: cannot listen on port " + port + ": Address already in use"),
            lines,
            "one line, no stack trace");
        try (var files = Files.list(dir)) {
          assertFalse(files.findAny().isPresent(), "the database was not opened before the bind");
        }
      }
    }
  }
}
