package io.leaf.server.config;

/**
 * The bounded pool running the RPCs that write or read the database directly (CreateTag,
 * UpdateStep, GetTag, ListTags, InitCache's read, ReserveIds' dedicated write), apart from the
 * segment loaders.
 *
 * @param threads threads running such calls
 * @param maxQueued such calls that may wait for a thread
 */
public record DbCallPool(int threads, int maxQueued) {}
