package io.leaf.server.config;

import java.time.Duration;

/**
 * The gRPC API's port, limits and database-call pool.
 *
 * @param port TCP port of the gRPC server; 0: any free port
 * @param calls the largest batch and the longest wait of one call
 * @param shutdownGrace time in-flight calls get to finish on stop
 * @param streams the batch and Health/Watch streams open at once, and the batch streams' memory
 * @param connections the concurrent calls and the age of one client connection
 * @param dbCalls the threads running the RPCs that write or read the database directly
 */
public record ApiConfig(
    int port,
    CallLimits calls,
    Duration shutdownGrace,
    StreamLimits streams,
    ConnectionBounds connections,
    DbCallPool dbCalls) {

  static ApiConfig from(FlagValues v) {
    return new ApiConfig(
        v.get(Flags.PORT),
        new CallLimits(v.get(Flags.MAX_BATCH), v.get(Flags.MAX_WAIT)),
        v.get(Flags.SHUTDOWN_GRACE),
        new StreamLimits(
            v.get(Flags.MAX_STREAMS), v.get(Flags.MAX_STREAM_MEMORY), v.get(Flags.MAX_WATCHES)),
        new ConnectionBounds(
            v.get(Flags.MAX_CALLS_PER_CONNECTION),
            v.get(Flags.MAX_CONNECTION_AGE),
            v.get(Flags.MAX_CONNECTION_AGE_GRACE)),
        new DbCallPool(
            v.get(DatabaseFlags.DB_CALL_THREADS), v.get(DatabaseFlags.MAX_QUEUED_DB_CALLS)));
  }
}
