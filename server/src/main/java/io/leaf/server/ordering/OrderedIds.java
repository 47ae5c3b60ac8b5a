package io.leaf.server.ordering;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * IDs for callers outside gRPC (the HTTP port): a STRICT tag's from its owner, here or forwarded, a
 * SCATTERED tag's from {@code local} scattered, any other tag's from {@code local}.
 */
public interface OrderedIds {

  /** Every tag served by {@code local}: a server without orderings. */
  OrderedIds LOCAL =
      new OrderedIds() {
        @Override
        public CompletableFuture<Long> nextId(
            String bizTag, Supplier<CompletableFuture<Long>> local) {
          return local.get();
        }

        @Override
        public CompletableFuture<String> nextFormattedId(
            String bizTag, Supplier<CompletableFuture<String>> local) {
          return local.get();
        }

        @Override
        public CompletableFuture<Long> nextSequence(String bizTag, String key) {
          return CompletableFuture.failedFuture(
              io.grpc.Status.FAILED_PRECONDITION
                  .withDescription("this server serves no STRICT tags")
                  .asRuntimeException());
        }
      };

  CompletableFuture<Long> nextId(String bizTag, Supplier<CompletableFuture<Long>> local);

  CompletableFuture<String> nextFormattedId(
      String bizTag, Supplier<CompletableFuture<String>> local);

  /** The next value of {@code key}'s sequence on the STRICT tag {@code bizTag} (NextSequence). */
  CompletableFuture<Long> nextSequence(String bizTag, String key);
}
