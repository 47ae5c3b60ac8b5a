/**
 * Per-key sequences of STRICT tags (NextSequence): each key's own sequence from 1, strictly
 * increasing in real time across servers, restarts and failovers, in the manner of WeChat's seqsvr.
 *
 * <p>{@link io.leaf.server.sequence.Sequences} is what the tag's owner calls with its {@link
 * io.leaf.server.sequence.OwnerTerm}; keys hash into sections ({@code Section}), each with one
 * stored ceiling in {@code leaf_sequence_section} ({@link
 * io.leaf.server.sequence.JooqSectionStore}, created when missing; {@link
 * io.leaf.server.sequence.MemorySectionStore} for tests), raised in a statement that checks the
 * owner's lease row. In memory: each section's floor and ceiling and the last value of each active
 * key by its 64-bit hash ({@code KeyTable}), bounded by {@code --sequence-max-keys} ({@code
 * KeyBudget}). Routing, the lease and forwarding are the ordering feature's; docs/ordering.md tells
 * the rules.
 */
package io.leaf.server.sequence;
