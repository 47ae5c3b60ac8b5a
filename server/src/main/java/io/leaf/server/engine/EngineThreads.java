package io.leaf.server.engine;

import java.util.concurrent.Executor;

/**
 * The threads the engine's work runs on, made and shut down by whoever builds the engine: the
 * engine only hands them tasks, and never starts or stops a thread of its own.
 *
 * <p>{@code loads} runs the loads of tags this server serves and {@code firstLoads} the first loads
 * of tags it holds nothing for. Each is bounded and refuses with a {@link
 * java.util.concurrent.RejectedExecutionException} when full, which the engine answers with a
 * {@link LimitExceededException} naming the {@link LoadPool#queue()} of {@link
 * EngineConfig#loaders()} or of {@link EngineConfig#firstLoads()}, so their queues are those sizes.
 * Their maker shuts them down after {@link SegmentAllocator#close()}; a load they still hold then
 * never runs.
 *
 * @param loads loads of tags that hold a segment here (preloads, reloads)
 * @param firstLoads first loads of tags that hold no segment here
 * @param timer enforces waiting calls' deadlines
 */
public record EngineThreads(Executor loads, Executor firstLoads, DeadlineTimer timer) {}
