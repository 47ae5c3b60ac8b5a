package io.leaf.server.ledger;

import io.leaf.server.store.TakeGuard;
import java.sql.Connection;
import java.time.InstantSource;
import org.jooq.DSLContext;

/**
 * The ledger's part of a take: a {@code leaf_ledger} record of its range in the take's own
 * transaction (a {@link TakeGuard}), so a range leaves only once its record committed with it.
 *
 * <p>Inactive with the ledger off. Stateless.
 */
public final class RecordedTakes implements TakeGuard {

  private final LedgerSettings settings;
  private final InstantSource clock;

  /**
   * @param clock stamps the start-up probe's row (a take's record carries the take's own time)
   */
  public RecordedTakes(LedgerSettings settings, InstantSource clock) {
    this.settings = settings;
    this.clock = clock;
  }

  public LedgerSettings settings() {
    return settings;
  }

  @Override
  public boolean active() {
    return settings.on();
  }

  /** {@inheritDoc} {@link JooqLedger#open}: {@code leaf_ledger} there and writable. */
  @Override
  public void open(DSLContext dsl) {
    if (settings.on()) {
      JooqLedger.open(dsl, settings.server(), clock.millis());
    }
  }

  @Override
  public void inTake(Connection c, DSLContext db, Take take) {
    JooqLedger.insert(
        db,
        take.bizTag(),
        take.range().start(),
        take.range().end(),
        take.reservation() ? RangeKind.RESERVE : RangeKind.SEGMENT,
        settings.server(),
        take.nowMillis());
  }
}
