package io.leaf.server.health;

import com.google.common.base.Ticker;
import io.leaf.server.store.StoreRejectedException;
import java.time.Duration;

/**
 * Tracks whether the database answers, as the server's periodic checks see it, and logs each change
 * of that state once.
 *
 * <p>While the database stays down it logs at most one line per {@code repeat}, so an outage of an
 * hour logs about sixty lines, not thousands.
 *
 * <p>Time comes from the injected ticker. Thread-safe (observations are serialized).
 */
final class DatabaseState {

  /** A reason is one line of at most this many characters in the log. */
  static final int MAX_REASON = 300;

  private final Ticker ticker;
  private final long repeatNanos;

  /** Null until the first observation. */
  private Boolean up;

  private long downSinceNanos;
  private long lastLoggedNanos;

  DatabaseState(Ticker ticker, Duration repeat) {
    this.ticker = ticker;
    this.repeatNanos = repeat.toNanos();
  }

  /** True once the database answered and until a check fails. */
  synchronized boolean isUp() {
    return up != null && up;
  }

  /**
   * Records one check's result.
   *
   * @param failure why the check failed; null when the database answered
   * @return the line to log, or null when this observation changes nothing worth a line
   */
  synchronized String observe(Throwable failure) {
    long now = ticker.read();
    if (failure == null) {
      Boolean was = up;
      up = true;
      if (was == null) {
        return "database reachable";
      }
      return was
          ? null
          : "database reachable again after " + human(now - downSinceNanos) + " unreachable";
    }
    String reason = reason(failure);
    // A refusal (a privilege, a read-only server) answers: it is not reached, but not down.
    String state = failure instanceof StoreRejectedException ? "refusing Leaf" : "unreachable";
    if (up == null || up) {
      up = false;
      downSinceNanos = now;
      lastLoggedNanos = now;
      return "database " + state + ": " + reason;
    }
    if (now - lastLoggedNanos < repeatNanos) {
      return null;
    }
    lastLoggedNanos = now;
    return "database still " + state + " after " + human(now - downSinceNanos) + ": " + reason;
  }

  /** The failure's message as one bounded line (driver messages can span lines). */
  static String reason(Throwable failure) {
    String message =
        failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
    int newline = message.indexOf('\n');
    String line = (newline >= 0 ? message.substring(0, newline) : message).strip();
    return line.length() > MAX_REASON ? line.substring(0, MAX_REASON) + "…" : line;
  }

  private static String human(long nanos) {
    Duration d = Duration.ofNanos(nanos);
    if (d.toMinutes() > 0) {
      return d.toMinutes() + "m" + d.toSecondsPart() + "s";
    }
    return d.toSeconds() + "." + d.toMillisPart() / 100 + "s";
  }
}
