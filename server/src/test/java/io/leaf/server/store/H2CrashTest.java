package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A process killed right after taking a segment from the embedded H2 database must not get the same
 * segment again after a restart: the {@code max_id} bump is on disk before its IDs leave.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("H2CrashTest")
class H2CrashTest {

  private static final String TAG = "crash";

  @Test
  @Timeout(180)
  void nextSegment_processHaltedRightAfter_restartTakesTheNextRange(@TempDir Path dir)
      throws Exception {
    // No WRITE_DELAY here: the server's own URL handling must make H2 durable.
    String url = "jdbc:h2:file:" + dir.resolve("leaf").toAbsolutePath() + ";MODE=MySQL";

    String first = takeSegmentThenHalt(url);
    String second = takeSegmentThenHalt(url);
    String third = takeSegmentThenHalt(url);

    assertEquals("1,1001", first, "the first process takes the first segment");
    assertEquals("1001,2001", second, "after a halt the next process takes the next segment");
    assertEquals("2001,3001", third, "and so on");
  }

  /** Runs {@link Child} in a new JVM and returns the range it printed before halting. */
  private static String takeSegmentThenHalt(String url) throws IOException, InterruptedException {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p =
        new ProcessBuilder(List.of(java.toString(), "-cp", classpath, Child.class.getName(), url))
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child finished; output:\n" + output);
    return output
        .lines()
        .filter(l -> l.startsWith("RANGE "))
        .map(l -> l.substring(6))
        .findFirst()
        .orElseThrow(() -> new AssertionError("child printed no range:\n" + output));
  }

  /** Takes one segment, prints it, and halts at once: no shutdown hook, no pool close. */
  public static final class Child {
    public static void main(String[] args) {
      JooqSegmentStore store =
          new JooqSegmentStore(
              DataSources.create(args[0], "sa", "", 2),
              DataSources.dialectOf(args[0]),
              InstantSource.system());
      // Opening a file a halted process left can take more than the pool's 3 s on a loaded
      // machine: the server would keep trying, and so does this child, for 60 s.
      long until = System.nanoTime() + 60_000_000_000L;
      while (true) {
        try {
          store.createSchemaIfMissing();
          break;
        } catch (StoreUnavailableException e) {
          if (System.nanoTime() > until) {
            throw e;
          }
        }
      }
      if (store.getTag(TAG).isEmpty()) {
        store.createTag(TAG, 1, 1000, null);
      }
      SegmentRange r = store.nextSegment(TAG, SegmentStore.TABLE_STEP);
      System.out.println("RANGE " + r.start() + "," + r.end());
      System.out.flush();
      Runtime.getRuntime().halt(0);
    }
  }
}
