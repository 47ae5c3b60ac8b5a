package io.leaf.server.ordering;

import io.grpc.Status;
import io.leaf.server.store.DatabaseErrors;

/**
 * How a failure of {@code leaf_tag_lease} reaches a caller: a refusal no retry fixes is
 * FAILED_PRECONDITION naming the table's grants, anything else UNAVAILABLE.
 */
final class OrderingTableErrors {

  private OrderingTableErrors() {}

  static Status status(Throwable e) {
    return DatabaseErrors.classify(e) == DatabaseErrors.Kind.REFUSED
        ? Status.FAILED_PRECONDITION
        : Status.UNAVAILABLE;
  }

  static String describe(Throwable e) {
    return DatabaseErrors.classify(e) == DatabaseErrors.Kind.REFUSED
        ? "the database refuses leaf_tag_lease (every server's user needs SELECT, INSERT and UPDATE"
            + " on it; see docs/databases.md): "
            + e.getMessage()
        : "the ordering table cannot be used now: " + e.getMessage();
  }
}
