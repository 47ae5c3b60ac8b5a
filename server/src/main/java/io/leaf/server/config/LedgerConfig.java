package io.leaf.server.config;

import java.time.Duration;

/**
 * The ledger of ranges taken ({@code --ledger}, {@code --ledger-retention}).
 *
 * @param on whether every take is recorded in {@code leaf_ledger}
 * @param retention records older than this are deleted
 */
public record LedgerConfig(boolean on, Duration retention) {

  /** On, 30 days: the flags' defaults. */
  public static final LedgerConfig DEFAULTS = new LedgerConfig(true, Duration.ofDays(30));

  static LedgerConfig from(FlagValues v) {
    return new LedgerConfig(v.get(DatabaseFlags.LEDGER), v.get(DatabaseFlags.LEDGER_RETENTION));
  }

  @Override
  public String toString() {
    return "ledger=" + (on ? "on" : "off") + " ledger-retention=" + Parsers.format(retention);
  }
}
