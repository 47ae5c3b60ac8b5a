package io.leaf.server.logging;

import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Demotes to FINE (DEBUG) the transport's warning for a write to a stream the client has already
 * reset, and passes every other record unchanged.
 *
 * <p>A client cancelling a NextIdBatch mid-stream is normal: the chunks already queued for it fail
 * with "Stream closed before write could take place", which grpc-java logs as a multi-line "Stream
 * Error" warning for each cancel.
 */
public final class TransportLogs {

  static final String HANDLER_LOGGER = "io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler";
  static final String CLOSED_STREAM_WRITE = "Stream closed before write could take place";

  /** Held so that the JUL logger, and the filter set on it, is never collected. */
  private static final Logger HANDLER = Logger.getLogger(HANDLER_LOGGER);

  static {
    HANDLER.setFilter(TransportLogs::isLoggable);
  }

  private TransportLogs() {}

  /** Installs the filter (once per JVM; later calls do nothing). */
  public static void install() {
    // The static initializer did the work.
  }

  private static boolean isLoggable(LogRecord record) {
    if (record.getLevel().intValue() <= Level.FINE.intValue() || !isClosedStreamWrite(record)) {
      return true;
    }
    record.setLevel(Level.FINE);
    return HANDLER.isLoggable(Level.FINE);
  }

  private static boolean isClosedStreamWrite(LogRecord record) {
    for (Throwable t = record.getThrown(); t != null; t = t.getCause()) {
      if (t.getMessage() != null && t.getMessage().contains(CLOSED_STREAM_WRITE)) {
        return true;
      }
    }
    return false;
  }
}
