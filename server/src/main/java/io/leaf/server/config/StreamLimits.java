package io.leaf.server.config;

/**
 * How many long-lived streams the gRPC API holds open at once, and the memory the batch streams'
 * chunks may hold together.
 *
 * @param maxStreams batch streams open at once
 * @param maxMemory bytes the chunks of all open batch streams may hold; 0: auto
 * @param maxWatches Health/Watch streams open at once
 */
public record StreamLimits(int maxStreams, long maxMemory, int maxWatches) {}
