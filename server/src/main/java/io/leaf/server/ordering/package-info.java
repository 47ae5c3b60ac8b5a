/**
 * Orderings of tags: PER_SERVER (each server's own segments, the default), STRICT (real-time order
 * across every server: one owner issues, the others forward one hop) and SCATTERED (each server's
 * own segments, every value bit-reversed by {@link io.leaf.server.scattered.ScatteredIds}).
 *
 * <p>{@link io.leaf.server.ordering.Ordering} is what the server wires: LeafService wrapped by
 * {@code OrderedLeafService}, routing by {@link io.leaf.server.ordering.StrictTags}, the lease
 * rules of one tag in {@code TagOwnership}, forwarding in {@code Forwarder}, the admin side in
 * {@code OrderingAdmin}; storage is {@link io.leaf.server.ordering.OrderingStore} on the {@code
 * leaf_tag_lease} table ({@link io.leaf.server.ordering.JooqOrderingStore}, created when missing)
 * or in memory ({@code MemoryOrderingStore}: a server alone, tests). docs/ordering.md tells the
 * guarantee and the fence.
 */
package io.leaf.server.ordering;
