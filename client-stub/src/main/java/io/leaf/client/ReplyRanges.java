package io.leaf.client;

import io.grpc.Status;
import io.leaf.v1.ReservedIds;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks a ReserveIds reply before a client uses its ranges: non-empty, ascending, disjoint and
 * exactly the count asked for, else an INTERNAL {@link LeafException} (a client that caches the
 * ranges must never hand out an ID twice).
 */
final class ReplyRanges {

  private ReplyRanges() {}

  /** The reply's ranges, checked against the contract and {@code count}. */
  static List<IdRange> checked(ReservedIds reply, long count) {
    List<IdRange> out = new ArrayList<>(reply.getRangesCount());
    long total = 0;
    long lastEnd = Long.MIN_VALUE;
    for (io.leaf.v1.IdRange r : reply.getRangesList()) {
      if (r.getEnd() <= r.getStart() || r.getStart() < lastEnd) {
        throw new LeafException(
            Status.Code.INTERNAL,
            "server sent ranges that are empty, out of"
                + " order or overlapping: "
                + reply.getRangesList(),
            null);
      }
      total += r.getEnd() - r.getStart();
      lastEnd = r.getEnd();
      out.add(new IdRange(r.getStart(), r.getEnd()));
    }
    if (total != count) {
      throw new LeafException(
          Status.Code.INTERNAL, "server reserved " + total + " IDs, " + count + " asked for", null);
    }
    return List.copyOf(out);
  }
}
