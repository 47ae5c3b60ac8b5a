package io.leaf.server.config;

import java.time.Duration;

/**
 * The gRPC API's port, limits and database-call pool.
 *
 * @param port TCP port of the gRPC server; 0: any free port
 * @param maxBatch largest count NextIdBatch and ReserveIds accept
 * @param maxWait longest a call waits for a segment when its deadline is later or unset
 * @param shutdownGrace time in-flight calls get to finish on stop
 * @param maxStreams batch streams open at once
 * @param maxStreamMemory bytes the chunks of all open batch streams may hold; 0: auto
 * @param maxWatches Health/Watch streams open at once
 * @param maxCallsPerConnection concurrent calls per HTTP/2 connection
 * @param maxConnectionAge a connection is sent GOAWAY after about this long; zero: never
 * @param maxConnectionAgeGrace calls in progress on such a connection get this long to finish
 * @param dbCallThreads threads running the RPCs that write or read the database directly
 * @param maxQueuedDbCalls such calls that may wait for a thread
 */
public record ApiConfig(
    int port,
    int maxBatch,
    Duration maxWait,
    Duration shutdownGrace,
    int maxStreams,
    long maxStreamMemory,
    int maxWatches,
    int maxCallsPerConnection,
    Duration maxConnectionAge,
    Duration maxConnectionAgeGrace,
    int dbCallThreads,
    int maxQueuedDbCalls) {

  static ApiConfig from(FlagValues v) {
    return new ApiConfig(
        v.get(Flags.PORT),
        v.get(Flags.MAX_BATCH),
        v.get(Flags.MAX_WAIT),
        v.get(Flags.SHUTDOWN_GRACE),
        v.get(Flags.MAX_STREAMS),
        v.get(Flags.MAX_STREAM_MEMORY),
        v.get(Flags.MAX_WATCHES),
        v.get(Flags.MAX_CALLS_PER_CONNECTION),
        v.get(Flags.MAX_CONNECTION_AGE),
        v.get(Flags.MAX_CONNECTION_AGE_GRACE),
        v.get(DatabaseFlags.DB_CALL_THREADS),
        v.get(DatabaseFlags.MAX_QUEUED_DB_CALLS));
  }
}
