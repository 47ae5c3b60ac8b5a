package io.leaf.bench;

import static io.leaf.bench.Cells.fmt;

import io.grpc.ManagedChannel;
import io.leaf.bench.FormattedTags.Format;
import io.leaf.v1.FormattedIdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One NextFormattedIdBatch stream measured (F2): a format, the count per call, the chunk size. */
record FormattedBatch(Format format, int count, int chunk) {

  /** The streams measured: the plain format at each of P2's chunk sizes, the opaque at the last. */
  static List<FormattedBatch> all(BenchOptions options) {
    List<FormattedBatch> out = new ArrayList<>();
    for (int chunk : options.load().batch().chunks()) {
      out.add(new FormattedBatch(FormattedTags.PLAIN, options.load().batch().count(), chunk));
    }
    // FF1 costs microseconds a value: a tenth of the count keeps one call near a second.
    out.add(
        new FormattedBatch(
            FormattedTags.OPAQUE,
            options.load().batch().count() / 10,
            options.load().batch().chunks().get(options.load().batch().chunks().size() - 1)));
    return out;
  }

  /** Values per second of NextFormattedIdBatch calls made one after another for {@code time}. */
  double stream(ManagedChannel channel, Duration time) {
    NextIdBatchRequest request =
        NextIdBatchRequest.newBuilder()
            .setBizTag(format.tag())
            .setCount(count)
            .setChunkSize(chunk)
            .build();
    long values = 0;
    long start = System.nanoTime();
    long end = start + time.toNanos();
    do {
      long got = 0;
      Iterator<FormattedIdBatch> it =
          LeafServiceGrpc.newBlockingStub(channel)
              .withDeadlineAfter(60, TimeUnit.SECONDS)
              .nextFormattedIdBatch(request);
      while (it.hasNext()) {
        got += it.next().getValuesCount();
      }
      if (got != count) {
        throw new IllegalStateException(
            "NextFormattedIdBatch of " + count + " ended after " + got + " values");
      }
      values += got;
    } while (System.nanoTime() < end);
    return values * 1e9 / (System.nanoTime() - start);
  }

  String measure() {
    return "F2 NextFormattedIdBatch ("
        + format.name()
        + ") vs unary NextFormattedId, chunk "
        + fmt(chunk);
  }
}
