package io.leaf.server.store;

import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of Leaf's own tables as its store uses it: created when missing on first use (or at start),
 * then known to exist for the store's life, so later calls pay no metadata query.
 *
 * <p>Thread-safe: two first uses side by side may both check; {@link OwnTables#createIfMissing}
 * creates with {@code IF NOT EXISTS}.
 */
public final class OwnTable {

  private static final Logger log = LoggerFactory.getLogger(OwnTable.class);

  private final DSLContext dsl;
  private final String name;
  private volatile boolean checked;

  public OwnTable(DSLContext dsl, String name) {
    this.dsl = dsl;
    this.name = name;
  }

  public String name() {
    return name;
  }

  /**
   * Creates the table when the database lacks it, and logs that it did.
   *
   * @throws StoreUnavailableException the database cannot be reached
   * @throws StoreRejectedException the database refuses (no CREATE privilege, read-only)
   */
  public void create() {
    try {
      dsl.connectionResult(
          c -> {
            if (OwnTables.createIfMissing(c, dsl, name)) {
              log.info("created table {}", name);
            }
            return null;
          });
    } catch (DataAccessException e) {
      throw DatabaseErrors.toStoreException("open " + name, e, 1);
    }
    checked = true;
  }

  /** {@link #create} unless an earlier call of this object found the table. */
  public void ensure() {
    if (!checked) {
      create();
    }
  }
}
