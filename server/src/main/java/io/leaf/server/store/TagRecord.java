package io.leaf.server.store;

/** One {@code leaf_alloc} row as the store sees it; {@code updateTime} is epoch millis. */
public record TagRecord(String bizTag, long maxId, int step, String description, long updateTime) {}
