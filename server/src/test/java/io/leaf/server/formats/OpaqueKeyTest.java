package io.leaf.server.formats;

import static io.leaf.server.testing.FormattedServer.format;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.client.BearerToken;
import io.leaf.server.testing.DatabaseKind;
import io.leaf.server.testing.FakeWallClock;
import io.leaf.server.testing.FormattedServer;
import io.leaf.server.testing.SegmentLog;
import io.leaf.server.testing.TestDatabase;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.FormattedIdParts;
import io.leaf.v1.IdFormat;
import io.leaf.v1.LeafServiceGrpc.LeafServiceBlockingStub;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ParseFormattedIdRequest;
import io.leaf.v1.Reset;
import io.leaf.v1.SetFormatRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An opaque format ({@code {seq:6:opaque}}) on two servers sharing a {@code --format-key-file}:
 * values unique, six digits, not in order; ParseFormattedId gives the sequence (one the period's
 * row handed out) to the admin token only, -1 to the client token; a server with another key, or
 * none, refuses the tag with FAILED_PRECONDITION and cannot re-key it.
 */
class OpaqueKeyTest {

  private static final String ADMIN = "admin-7d1e0c";
  private static final String CLIENT = "client-52ab9f";
  private static final long NOW = Instant.parse("2026-11-26T10:00:00Z").toEpochMilli();
  private static final IdFormat OPAQUE = format("OP-{yyyyMMdd}-{seq:6:opaque}", Reset.DAILY, "");

  @TempDir Path dir;

  private Path keyFile(String name) throws Exception {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return Files.writeString(dir.resolve(name), HexFormat.of().formatHex(key) + "\n");
  }

  private static LeafServiceBlockingStub as(FormattedServer s, String token) {
    return s.leaf.blocking.withCallCredentials(new BearerToken(token));
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(DatabaseKind.class)
  void sharedKey_uniqueSixDigits_sequenceForTheAdminOnly_otherKeyRefused(DatabaseKind kind)
      throws Exception {
    String key = keyFile("key.hex").toString();
    String[] tokens = {"--admin-token", ADMIN, "--client-token", CLIENT};
    SegmentLog log = new SegmentLog();
    try (TestDatabase db = kind.open();
        FormattedServer a =
            FormattedServer.start(
                db, new FakeWallClock(NOW), log, with(tokens, "--format-key-file", key));
        FormattedServer a2 =
            FormattedServer.start(
                db, new FakeWallClock(NOW), log, with(tokens, "--format-key-file", key));
        FormattedServer other =
            FormattedServer.start(
                db,
                new FakeWallClock(NOW),
                log,
                with(tokens, "--format-key-file", keyFile("other.hex").toString()));
        FormattedServer none = FormattedServer.start(db, new FakeWallClock(NOW), log, tokens)) {
      as(a, ADMIN)
          .createTag(
              CreateTagRequest.newBuilder().setBizTag("op").setStep(50).setFormat(OPAQUE).build());
      List<String> values = new ArrayList<>();
      for (int i = 0; i < 1_500; i++) {
        for (FormattedServer s : List.of(a, a2)) {
          values.add(
              as(s, CLIENT)
                  .nextFormattedId(NextIdRequest.newBuilder().setBizTag("op").build())
                  .getValue());
        }
      }
      assertEquals(values.size(), new HashSet<>(values).size(), "no repeats");
      assertTrue(values.stream().allMatch(v -> v.matches("OP-20261126-\\d{6}")), "shape");
      int ascending = 0;
      for (int i = 1; i < values.size(); i++) {
        ascending += values.get(i).compareTo(values.get(i - 1)) > 0 ? 1 : 0;
      }
      assertTrue(ascending < values.size() * 0.6, "not in order: " + ascending + " ascending");

      Set<Long> sequences = new HashSet<>();
      for (String v : values) {
        ParseFormattedIdRequest parse =
            ParseFormattedIdRequest.newBuilder().setBizTag("op").setValue(v).build();
        FormattedIdParts admin = as(a2, ADMIN).parseFormattedId(parse);
        assertEquals("20261126", admin.getPeriod());
        assertTrue(log.handedOut("op#20261126", admin.getSequence()), v + " -> " + admin);
        assertTrue(sequences.add(admin.getSequence()), v);
        FormattedIdParts client = as(a, CLIENT).parseFormattedId(parse);
        assertEquals(-1, client.getSequence(), v);
        assertEquals("20261126", client.getPeriod());
      }

      for (FormattedServer refusing : List.of(other, none)) {
        ParseFormattedIdRequest parse =
            ParseFormattedIdRequest.newBuilder().setBizTag("op").setValue(values.get(0)).build();
        assertRefused(
            () ->
                as(refusing, CLIENT)
                    .nextFormattedId(NextIdRequest.newBuilder().setBizTag("op").build()),
            Status.Code.FAILED_PRECONDITION);
        assertRefused(() -> refusing.batch("op", 3), Status.Code.UNAUTHENTICATED);
        assertRefused(
            () -> as(refusing, ADMIN).parseFormattedId(parse), Status.Code.FAILED_PRECONDITION);
      }
      // Nor can the server with another key take the tag over by setting the format again.
      assertRefused(
          () ->
              as(other, ADMIN)
                  .setFormat(
                      SetFormatRequest.newBuilder().setBizTag("op").setFormat(OPAQUE).build()),
          Status.Code.INVALID_ARGUMENT);
      System.err.println(
          "[leaf-tests] opaque on two servers with one key on "
              + kind
              + ": "
              + values.size()
              + " values, 0 repeats, "
              + ascending
              + " ascending steps");
    }
  }

  private static String[] with(String[] flags, String... more) {
    String[] all = java.util.Arrays.copyOf(flags, flags.length + more.length);
    System.arraycopy(more, 0, all, flags.length, more.length);
    return all;
  }

  private static void assertRefused(Executable call, Status.Code code) {
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
    assertEquals(code, e.getStatus().getCode(), e.getStatus().toString());
    if (code == Status.Code.FAILED_PRECONDITION) {
      assertTrue(e.getStatus().getDescription().contains("\"op\""), e.getStatus().toString());
    }
  }
}
