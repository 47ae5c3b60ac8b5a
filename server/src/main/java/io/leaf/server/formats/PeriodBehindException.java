package io.leaf.server.formats;

/**
 * A formatted number refused because its period's row is missing while a later period already has
 * one (UNAVAILABLE: another server, or this one once its clock is right, can serve the call).
 *
 * <p>This server's clock is behind the one that created the later row (or the row was removed), and
 * creating it again would start its numbers at 1 once more.
 */
public final class PeriodBehindException extends RuntimeException {

  public PeriodBehindException(String tag, String period, String laterPeriod) {
    super(
        "tag "
            + Text.quote(tag)
            + ": period "
            + period
            + " has no row while the later period "
            + laterPeriod
            + " has one; this server's clock is behind, so it issues no number of "
            + period
            + " (another row would start its numbers at 1 again)");
  }
}
