package io.leaf.server.ledger;

/**
 * Whether a store records every range it takes in {@code leaf_ledger} ({@code --ledger}), and under
 * which server identity.
 *
 * @param on false: one statement per take, nothing recorded, WhoIssued refused
 * @param server this server's identity, written with each record (at most 255 characters)
 */
public record LedgerSettings(boolean on, String server) {

  /** No ledger: a take is the one statement it was before the ledger existed. */
  public static final LedgerSettings OFF = new LedgerSettings(false, "");

  public LedgerSettings {
    if (server.length() > 255) {
      throw new IllegalArgumentException("the server identity is longer than 255 characters");
    }
  }

  /** The ledger on, records written as {@code server}. */
  public static LedgerSettings on(String server) {
    return new LedgerSettings(true, server);
  }
}
