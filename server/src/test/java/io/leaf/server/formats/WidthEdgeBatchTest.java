package io.leaf.server.formats;

import static io.leaf.server.testing.FormattedServer.format;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.testing.DatabaseKind;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.FormattedServer;
import io.leaf.server.testing.TestDatabase;
import io.leaf.v1.FormattedIdBatch;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.Reset;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Batches whose last one crosses a format's width: every number up to the width is issued exactly
 * once (the crossing stream sends the numbers before the width in its messages, then ends with
 * OUT_OF_RANGE), and the next batch is refused OUT_OF_RANGE.
 */
class WidthEdgeBatchTest {

  private static final long NOW = Instant.parse("2026-11-26T10:00:00Z").toEpochMilli();

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void batchesCrossingWidth_everyNumberOnce_thenOutOfRange(DatabaseKind kind) throws Exception {
    try (TestDatabase db = kind.open();
        FormattedServer s = FormattedServer.start(db, new FakeWallClock(NOW), null)) {
      s.createTag("edge", 10, format("E{seq:2}", Reset.NEVER, ""));
      List<String> values = new ArrayList<>();
      Status end = null;
      int calls = 0;
      int crossing = -1;
      while (end == null && calls < 100) {
        calls++;
        List<String> got = new ArrayList<>();
        // 99 numbers in batches of 7 (chunks of 3): the 15th batch crosses the width.
        Iterator<FormattedIdBatch> it =
            s.leaf
                .blocking
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .nextFormattedIdBatch(
                    NextIdBatchRequest.newBuilder()
                        .setBizTag("edge")
                        .setCount(7)
                        .setChunkSize(3)
                        .build());
        try {
          it.forEachRemaining(b -> got.addAll(b.getValuesList()));
        } catch (StatusRuntimeException e) {
          end = e.getStatus();
          if (!got.isEmpty()) {
            crossing = got.size();
          }
        }
        values.addAll(got);
      }
      Set<String> distinct = new HashSet<>(values);
      System.err.println(
          "[leaf-tests] batches across width 2 on "
              + kind
              + ": "
              + values.size()
              + " values in "
              + calls
              + " calls, the crossing one sent "
              + crossing);
      assertNotNull(end, "the width ends the batches");
      assertEquals(Status.Code.OUT_OF_RANGE, end.getCode(), end.toString());
      assertEquals(values.size(), distinct.size(), "no repeats: " + values);
      assertEquals(99, distinct.size(), "every number of the width: " + values);
      assertTrue(values.stream().allMatch(v -> v.matches("E\\d{2}")), values.toString());
      assertEquals(99 % 7, crossing, "the crossing stream's numbers before its end");
      StatusRuntimeException next =
          assertThrows(StatusRuntimeException.class, () -> s.batch("edge", 7));
      assertEquals(Status.Code.OUT_OF_RANGE, next.getStatus().getCode(), "refused after");
    }
  }
}
