package io.leaf.server.ordering;

import io.grpc.Status;
import java.util.concurrent.CompletableFuture;

/**
 * The failures a call on a tag is routed to when this server cannot serve or forward it now, each
 * worded for the caller (what happened, and whether a retry helps).
 */
final class RouteRefusals {

  private RouteRefusals() {}

  /** The tag's ordering could not be read twice in a row. */
  static <T> CompletableFuture<T> unreadable(String bizTag) {
    return failed(
        Status.UNAVAILABLE.withDescription(
            "the ordering of tag "
                + bizTag
                + " cannot be read from the database now (leaf_tag_lease)"));
  }

  /** This server knows the ordering of {@code maxKnown} tags, all STRICT or owned. */
  static <T> CompletableFuture<T> noRoom(String bizTag, int maxKnown) {
    return failed(
        Status.RESOURCE_EXHAUSTED.withDescription(
            "this server knows the"
                + " ordering of "
                + maxKnown
                + " tags already; no room for tag "
                + bizTag));
  }

  /** This server ({@code self}) just became the owner and waits out the previous lease. */
  static <T> CompletableFuture<T> waitingOut(String bizTag, String self, long remainingNanos) {
    return failed(
        Status.UNAVAILABLE.withDescription(
            "tag "
                + bizTag
                + " is STRICT and this"
                + " server ("
                + self
                + ") just became its owner: it waits out the previous owner's"
                + " lease for "
                + Math.max(1, remainingNanos / 1_000_000)
                + " ms more; retry"));
  }

  /** {@code self} does not own the STRICT tag; {@code owner} is the one it knows, or empty. */
  static <T> CompletableFuture<T> notOwner(String bizTag, String self, String owner) {
    return failed(
        Status.UNAVAILABLE.withDescription(
            "tag "
                + bizTag
                + " is STRICT and "
                + self
                + " is not its owner (owner: "
                + (owner.isEmpty() ? "none now" : owner)
                + "); retry"));
  }

  /**
   * The lease row names {@code self}'s address with an epoch this process does not hold: an earlier
   * run's lease, a lost answer to its own acquisition, or a twin's (the same address).
   */
  static <T> CompletableFuture<T> sameAddress(String bizTag, String self, long remainingNanos) {
    return failed(
        Status.UNAVAILABLE.withDescription(
            "tag "
                + bizTag
                + " is STRICT and its owner lease names this server's address ("
                + self
                + ") with an epoch this process does not hold: an earlier run's lease, this"
                + " server's own acquisition whose answer was lost, or another server with the"
                + " same --advertise-address; it expires within "
                + Math.max(1, remainingNanos / 1_000_000)
                + " ms; retry"));
  }

  private static <T> CompletableFuture<T> failed(Status status) {
    return CompletableFuture.failedFuture(status.asRuntimeException());
  }
}
