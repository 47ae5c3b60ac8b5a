package io.leaf.server.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Applies {@code --log-level} to the logging library, except that the transport's loggers never go
 * below INFO and the start line's logger stays at INFO, whatever the level.
 *
 * <p>At DEBUG the transport's loggers print every HTTP/2 header frame, {@code authorization: Bearer
 * …} included; the start line tells an operator where the server listens.
 */
public final class LogLevels {

  /** Logs the one "listening" line; kept at INFO whatever the level. */
  public static final String START_LOGGER = "io.leaf.server.start";

  /** The transports (gRPC's shaded Netty, and Netty itself for HTTP): their DEBUG logs headers. */
  static final List<String> TRANSPORT_LOGGERS = List.of("io.grpc.netty.shaded", "io.netty");

  private LogLevels() {}

  /**
   * @param level one of {@link io.leaf.server.config.Flags#LOG_LEVELS} (validated there)
   */
  public static void apply(String level) {
    if (!(LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext)) {
      return;
    }
    Level root = Level.toLevel(level, Level.INFO);
    logger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(root);
    Level transport = root.isGreaterOrEqual(Level.INFO) ? root : Level.INFO;
    for (String name : TRANSPORT_LOGGERS) {
      logger(name).setLevel(transport);
    }
    logger(START_LOGGER).setLevel(Level.INFO);
  }

  private static Logger logger(String name) {
    return (Logger) LoggerFactory.getLogger(name);
  }
}
