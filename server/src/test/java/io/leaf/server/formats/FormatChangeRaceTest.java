package io.leaf.server.formats;

import static io.leaf.server.testing.FormattedServer.format;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.testing.DatabaseKind;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.FormattedServer;
import io.leaf.server.testing.TestDatabase;
import io.leaf.v1.IdFormat;
import io.leaf.v1.ParseFormattedIdRequest;
import io.leaf.v1.Reset;
import io.leaf.v1.SetFormatRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A format change never lets two servers repeat a value, even before the tag's first number: a
 * server that read the earlier format keeps serving it until it reads the change, and may issue its
 * first numbers after the change was checked.
 */
class FormatChangeRaceTest {

  private static final long NOW = Instant.parse("2026-11-26T10:00:00Z").toEpochMilli();

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void changeBeforeAnyNumber_whileAnotherServerHoldsTheEarlierFormat_noRepeats(DatabaseKind kind)
      throws Exception {
    try (TestDatabase db = kind.open();
        FormattedServer a = FormattedServer.start(db, new FakeWallClock(NOW), null);
        FormattedServer b = FormattedServer.start(db, new FakeWallClock(NOW), null)) {
      IdFormat monthly = format("{yyyyMMdd}{seq:4}", Reset.MONTHLY, "");
      a.createTag("race", 10, monthly);
      // B reads the tag's format (a parse, or a first call still on its way to the database).
      b.leaf.blocking.parseFormattedId(
          ParseFormattedIdRequest.newBuilder().setBizTag("race").setValue("202611260001").build());
      boolean changed;
      try {
        a.leaf.blocking.setFormat(
            SetFormatRequest.newBuilder()
                .setBizTag("race")
                .setFormat(format("{yyyyMMdd}{seq:4}", Reset.DAILY, ""))
                .build());
        changed = true;
      } catch (StatusRuntimeException refused) {
        assertEquals(Status.Code.INVALID_ARGUMENT, refused.getStatus().getCode());
        assertTrue(
            refused.getStatus().getDescription().contains("reset"),
            refused.getStatus().getDescription());
        changed = false;
      }
      List<String> all = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        all.add(b.next("race"));
        all.add(a.next("race"));
      }
      Set<String> distinct = new HashSet<>(all);
      assertEquals(all.size(), distinct.size(), "format changed: " + changed + ", values " + all);
    }
  }
}
