package io.leaf.server.ledger;

/**
 * One record of the ledger: {@code [start, end)} of a tag, the server that took (or handed back)
 * it, when, and why.
 *
 * @param server the server's identity ({@code host:port/pid-instance})
 * @param timeMs that server's clock when it recorded the range, epoch millis
 */
public record IssuedRange(long start, long end, String server, long timeMs, RangeKind kind) {

  public boolean holds(long id) {
    return id >= start && id < end;
  }

  /** The same record shifted by {@code base} (a region's share). */
  public IssuedRange shifted(long base) {
    return new IssuedRange(base + start, base + end, server, timeMs, kind);
  }
}
