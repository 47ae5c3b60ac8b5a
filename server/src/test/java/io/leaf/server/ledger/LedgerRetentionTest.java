package io.leaf.server.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.server.testing.FakeWallClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The retention's rounds on a fake clock and pruner, and the server identity's shape. */
class LedgerRetentionTest {

  private final FakeWallClock clock = new FakeWallClock(1_000_000_000_000L);
  private final List<Long> cutoffs = new ArrayList<>();
  private final List<Integer> limits = new ArrayList<>();

  private LedgerRetention retention(int... answers) {
    int[] next = {0};
    return new LedgerRetention(
        (cutoff, limit) -> {
          cutoffs.add(cutoff);
          limits.add(limit);
          return next[0] < answers.length ? answers[next[0]++] : 0;
        },
        Duration.ofDays(30),
        clock,
        new java.util.concurrent.ScheduledThreadPoolExecutor(1));
  }

  @Test
  void round_batchesUntilOneDeletesFewer_cutoffIsNowMinusRetention() {
    LedgerRetention r = retention(1_000, 1_000, 3);

    assertEquals(2_003, r.round());
    assertEquals(List.of(1_000, 1_000, 1_000), limits, "three statements of at most 1,000");
    long cutoff = clock.millis() - Duration.ofDays(30).toMillis();
    assertEquals(List.of(cutoff, cutoff, cutoff), cutoffs);
  }

  @Test
  void round_hugeBacklog_stopsAfterTheBatchCap() {
    int[] full = new int[500];
    java.util.Arrays.fill(full, 1_000);
    LedgerRetention r = retention(full);

    assertEquals(LedgerRetention.MAX_BATCHES * 1_000, r.round());
    assertEquals(LedgerRetention.MAX_BATCHES, limits.size(), "the rest waits for the next round");
  }

  @Test
  void round_clockMoves_cutoffFollows() {
    LedgerRetention r = retention();
    r.round();
    clock.advance(Duration.ofDays(1));
    r.round();
    assertEquals(Duration.ofDays(1).toMillis(), cutoffs.get(1) - cutoffs.get(0));
  }

  @Test
  void serverIdentity_hostPortPidInstance() {
    String id = ServerIdentity.of(50051);
    assertTrue(Pattern.matches("[^:]+:50051/\\d+-[0-9a-f]{6}", id), id);
    assertTrue(!id.equals(ServerIdentity.of(50051)), "a new instance at each start");
    assertEquals(255, ServerIdentity.of("h".repeat(300), 1, 2, "abcdef").length());
  }
}
