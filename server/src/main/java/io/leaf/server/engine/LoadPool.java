package io.leaf.server.engine;

/**
 * A bounded pool of segment loader threads: {@code threads} load at once and at most {@code queue}
 * further loads wait for one, after which new loads are refused.
 *
 * @param threads threads loading segments at once
 * @param queue loads that may wait for such a thread before new ones are refused
 */
public record LoadPool(int threads, int queue) {}
