package io.leaf.server.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Records what java.util.logging (grpc-java's and Netty's logger) publishes above FINE, from {@link
 * #start()} to {@link #close()}; logback's appenders do not see these records.
 */
public final class JulCapture implements AutoCloseable {

  private final List<String> records = new CopyOnWriteArrayList<>();
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord r) {
          if (r.getLevel().intValue() > Level.FINE.intValue()) {
            records.add(r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage());
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  public static JulCapture start() {
    JulCapture c = new JulCapture();
    Logger.getLogger("").addHandler(c.handler);
    return c;
  }

  /** "LEVEL logger: message" of each record so far. */
  public List<String> records() {
    return List.copyOf(records);
  }

  @Override
  public void close() {
    Logger.getLogger("").removeHandler(handler);
  }
}
