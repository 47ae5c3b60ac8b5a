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
      };

  CompletableFuture<Long> nextId(String bizTag, Supplier<CompletableFuture<Long>> local);

  CompletableFuture<String> nextFormattedId(
      String bizTag, Supplier<CompletableFuture<String>> local);
}
