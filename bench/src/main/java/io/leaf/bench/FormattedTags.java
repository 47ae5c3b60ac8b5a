package io.leaf.bench;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.FormattedIdParts;
import io.leaf.v1.IdFormat;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.LeafServiceGrpc.LeafServiceBlockingStub;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ParseFormattedIdRequest;
import io.leaf.v1.Reset;
import io.leaf.v1.SetFormatRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The formatted tags the formatted-ID rows measure, made on a server over gRPC, and how a run of
 * calls on them is checked: h2load counts HTTP statuses and gRPC reports errors in trailers, so
 * only numbers the server actually issued (read before and after a run) prove that calls succeeded.
 */
final class FormattedTags {

  /**
   * One format measured.
   *
   * @param name how the table names it
   */
  record Format(String name, String tag, String pattern, Reset reset) {
    String describe() {
      return "`" + pattern + "`, " + reset;
    }
  }

  /**
   * Ten digits, not eight: a stream issues millions of values a second, and a day's 10^8 numbers of
   * {@code {seq:8}} would run out within a run of a few more rounds (or a second run on the same
   * {@code --db-url}), after which every call of the day is OUT_OF_RANGE.
   */
  static final Format PLAIN =
      new Format("plain", "bench.formatted.plain", "ORD-{yyyyMMdd}-{seq:10}", Reset.DAILY);

  static final Format OPAQUE =
      new Format("opaque", "bench.formatted.opaque", "{seq:10:opaque}", Reset.NEVER);
  static final List<Format> FORMATS = List.of(PLAIN, OPAQUE);

  /**
   * Where a tag's issuing stood at one moment.
   *
   * @param period the period key the number came from ({@code ""} for NextId and NEVER formats)
   * @param position the ID, or the sequence within the period
   */
  record Reading(String period, long position) {}

  private FormattedTags() {}

  /**
   * Writes the benchmark's format key file (64 hex digits, owner-only) into {@code dir}. The key is
   * derived from a fixed label, so a run on a {@code --db-url} database left by an earlier run
   * finds the same key fingerprint stored with its opaque tag; it protects nothing.
   */
  static Path writeKeyFile(Path dir) throws IOException {
    Path file =
        Files.createTempFile(
            dir,
            "leaf-bench-format-",
            ".key",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, benchKeyHex() + "\n", StandardCharsets.US_ASCII);
    return file;
  }

  /** SHA-256 of a fixed label as 64 hex digits: an AES-256 key for benchmarks only. */
  static String benchKeyHex() {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest(
                      "leaf bench format key, benchmarks only"
                          .getBytes(StandardCharsets.US_ASCII)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /**
   * Creates each format's tag with {@code step}, or sets the same format again on a tag left by an
   * earlier run (accepted: the sequence continues in the same rows).
   */
  static void create(ManagedChannel channel, int step) {
    LeafServiceBlockingStub stub = LeafServiceGrpc.newBlockingStub(channel);
    for (Format f : FORMATS) {
      IdFormat format =
          IdFormat.newBuilder()
              .setPattern(f.pattern())
              .setReset(f.reset())
              .setTimeZone("UTC")
              .build();
      try {
        stub.withDeadlineAfter(30, TimeUnit.SECONDS)
            .createTag(
                CreateTagRequest.newBuilder()
                    .setBizTag(f.tag())
                    .setStep(step)
                    .setDescription("benchmark")
                    .setFormat(format)
                    .build());
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
          throw e;
        }
        stub.withDeadlineAfter(30, TimeUnit.SECONDS)
            .setFormat(SetFormatRequest.newBuilder().setBizTag(f.tag()).setFormat(format).build());
      }
    }
  }

  /** Takes one formatted number of {@code f} and reads back its period and sequence. */
  static Reading nextFormatted(ManagedChannel channel, Format f) {
    LeafServiceBlockingStub stub =
        LeafServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    String value =
        stub.nextFormattedId(NextIdRequest.newBuilder().setBizTag(f.tag()).build()).getValue();
    FormattedIdParts parts =
        stub.parseFormattedId(
            ParseFormattedIdRequest.newBuilder().setBizTag(f.tag()).setValue(value).build());
    if (parts.getSequence() < 0) {
      throw new IllegalStateException(
          "ParseFormattedId hid the sequence of "
              + value
              + ": the isolated server must run without tokens");
    }
    return new Reading(parts.getPeriod(), parts.getSequence());
  }

  /** Takes one ID of {@code tag}. */
  static Reading nextId(ManagedChannel channel, String tag) {
    return new Reading(
        "",
        LeafServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .nextId(NextIdRequest.newBuilder().setBizTag(tag).build())
            .getId());
  }

  /**
   * Checks an h2load run of {@code rpc} that reported {@code succeeded} calls between two readings,
   * each of which took one number itself.
   *
   * @param mayBeEmpty a run may end before its connections are up (--quick's short runs)
   * @return false when the period changed during the run (midnight), so the count cannot be
   *     checked; true when it was
   * @throws IllegalStateException the server issued fewer numbers than h2load counted calls
   */
  static boolean check(
      String rpc, long succeeded, Reading before, Reading after, boolean mayBeEmpty) {
    if (!before.period().equals(after.period())) {
      return false;
    }
    long issued = after.position() - before.position() - 1;
    if (succeeded == 0 && !mayBeEmpty || issued < succeeded) {
      throw new IllegalStateException(
          "h2load reported " + succeeded + " " + rpc + " calls but the server issued " + issued);
    }
    return true;
  }
}
