package io.leaf.server.snowflake;

/**
 * A worker ID held by one server, as the lease table last acknowledged it.
 *
 * @param workerId the worker ID
 * @param owner the holder's token, unique per server process
 * @param expiresMs when the lease ends unless renewed: epoch millis by the database's clock
 * @param lastTimestampMs no ID of this worker was issued above this timestamp (epoch millis) by an
 *     earlier holder, nor will be by this one before its lease ends
 */
public record WorkerLease(int workerId, String owner, long expiresMs, long lastTimestampMs) {}
