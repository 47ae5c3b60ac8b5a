package io.leaf.server.snowflake;

import static io.leaf.server.store.generated.Tables.LEAF_WORKER;

import io.leaf.server.db.Dialect;
import io.leaf.server.store.DatabaseErrors;
import io.leaf.server.store.OwnTable;
import io.leaf.server.store.StoreUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record4;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/**
 * {@link WorkerLeaseStore} on the {@code leaf_worker} table ({@code sql/schema.sql}), created when
 * missing: two servers (or two Galera nodes) can never both win a worker ID.
 *
 * <p>Each claim, renewal and release is one conditional autocommit statement; expiry is compared
 * with the database's clock ({@link Dialect#nowMillis}). Needs only SELECT, INSERT and UPDATE on
 * the table once it exists.
 *
 * <p>Thread-safe; each method uses one pooled connection for its statements.
 */
public final class JooqWorkerLeaseStore implements WorkerLeaseStore {

  private static final String TABLE = "leaf_worker";

  /** Candidates one claim tries before it reads the table again (servers racing lose some). */
  private static final int TRIES_PER_READ = 16;

  private static final int READS = 4;

  private final DSLContext dsl;
  private final InstantSource clock;
  private final Field<Long> dbNow;
  private final OwnTable table;

  public JooqWorkerLeaseStore(DataSource dataSource, SQLDialect dialect, InstantSource clock) {
    this.dsl = OwnTable.dsl(dataSource, dialect);
    this.table = new OwnTable(dsl, TABLE);
    this.clock = clock;
    this.dbNow = Dialect.of(dialect).nowMillis();
  }

  @Override
  public void createSchemaIfMissing() {
    table.create();
  }

  @Override
  public Optional<WorkerLease> claim(int fromId, int toId, String owner, Duration ttl) {
    if (fromId < 0 || toId < fromId) {
      throw new IllegalArgumentException("bad worker ID range " + fromId + "-" + toId);
    }
    table.ensure();
    return guard(
        "claim a worker ID",
        () ->
            dsl.connectionResult(
                c -> {
                  DSLContext db = autocommit(c);
                  for (int read = 0; read < READS; read++) {
                    List<Candidate> candidates = candidates(db, fromId, toId);
                    if (candidates.isEmpty()) {
                      return Optional.<WorkerLease>empty();
                    }
                    // From a random place, so that servers starting together spread over the free
                    // IDs.
                    Collections.rotate(
                        candidates, ThreadLocalRandom.current().nextInt(candidates.size()));
                    for (Candidate candidate :
                        candidates.subList(0, Math.min(TRIES_PER_READ, candidates.size()))) {
                      if (take(db, candidate, owner, ttl)) {
                        return read(db, candidate.workerId, owner);
                      }
                    }
                  }
                  // Every try lost a race; the caller tries again later.
                  return Optional.<WorkerLease>empty();
                }));
  }

  /** A worker ID nobody holds: never claimed ({@code row} false) or its lease ended. */
  private record Candidate(int workerId, boolean row, String owner, long expiresMs) {}

  private List<Candidate> candidates(DSLContext db, int fromId, int toId) {
    BitSet seen = new BitSet();
    List<Candidate> out = new ArrayList<>();
    Field<Boolean> expired = DSL.field(LEAF_WORKER.LEASE_EXPIRES_MS.lt(dbNow)).as("expired");
    for (Record4<Integer, String, Long, Boolean> r :
        db.select(LEAF_WORKER.WORKER_ID, LEAF_WORKER.OWNER, LEAF_WORKER.LEASE_EXPIRES_MS, expired)
            .from(LEAF_WORKER)
            .where(LEAF_WORKER.WORKER_ID.between(fromId, toId))
            .fetch()) {
      seen.set(r.value1() - fromId);
      if (Boolean.TRUE.equals(r.value4())) {
        out.add(new Candidate(r.value1(), true, r.value2(), r.value3()));
      }
    }
    for (int id = fromId; id <= toId; id++) {
      if (!seen.get(id - fromId)) {
        out.add(new Candidate(id, false, null, 0));
      }
    }
    return out;
  }

  /** One conditional write; false when another server got there first. */
  private boolean take(DSLContext db, Candidate candidate, String owner, Duration ttl) {
    Field<Long> expires = dbNow.plus(DSL.val(ttl.toMillis()));
    try {
      if (!candidate.row) {
        return db.insertInto(LEAF_WORKER)
                .set(LEAF_WORKER.WORKER_ID, candidate.workerId)
                .set(LEAF_WORKER.OWNER, owner)
                .set(LEAF_WORKER.LEASE_EXPIRES_MS, expires)
                .set(LEAF_WORKER.LAST_TIMESTAMP_MS, 0L)
                .set(LEAF_WORKER.UPDATE_TIME, clock.millis())
                .execute()
            == 1;
      }
      // Unchanged since read (owner and expiry) and still ended by the database's clock: a
      // renewal or another claim in between changes the expiry, so this matches no row.
      return db.update(LEAF_WORKER)
              .set(LEAF_WORKER.OWNER, owner)
              .set(LEAF_WORKER.LEASE_EXPIRES_MS, expires)
              .set(LEAF_WORKER.UPDATE_TIME, clock.millis())
              .where(LEAF_WORKER.WORKER_ID.eq(candidate.workerId))
              .and(LEAF_WORKER.OWNER.eq(candidate.owner))
              .and(LEAF_WORKER.LEASE_EXPIRES_MS.eq(candidate.expiresMs))
              .and(LEAF_WORKER.LEASE_EXPIRES_MS.lt(dbNow))
              .execute()
          == 1;
    } catch (DataAccessException e) {
      DatabaseErrors.Kind kind = DatabaseErrors.classify(e);
      if (kind == DatabaseErrors.Kind.DUPLICATE_KEY || kind == DatabaseErrors.Kind.CONFLICT) {
        return false;
      }
      throw e;
    }
  }

  @Override
  public Optional<WorkerLease> renew(
      int workerId, String owner, Duration ttl, long lastTimestampMs, long storedAtLeastMs) {
    table.ensure();
    return guard(
        "renew the lease of worker ID " + workerId,
        () ->
            dsl.connectionResult(
                c -> {
                  DSLContext db = autocommit(c);
                  int updated =
                      db.update(LEAF_WORKER)
                          .set(LEAF_WORKER.LEASE_EXPIRES_MS, dbNow.plus(DSL.val(ttl.toMillis())))
                          .set(
                              LEAF_WORKER.LAST_TIMESTAMP_MS,
                              DSL.greatest(LEAF_WORKER.LAST_TIMESTAMP_MS, DSL.val(lastTimestampMs)))
                          .set(LEAF_WORKER.UPDATE_TIME, clock.millis())
                          .where(LEAF_WORKER.WORKER_ID.eq(workerId))
                          .and(LEAF_WORKER.OWNER.eq(owner))
                          .and(LEAF_WORKER.LAST_TIMESTAMP_MS.ge(storedAtLeastMs))
                          .execute();
                  return updated == 1 ? read(db, workerId, owner) : Optional.<WorkerLease>empty();
                }));
  }

  @Override
  public void release(int workerId, String owner, long lastTimestampMs) {
    table.ensure();
    guard(
        "release worker ID " + workerId,
        () ->
            dsl.connectionResult(
                c ->
                    autocommit(c)
                        .update(LEAF_WORKER)
                        .set(LEAF_WORKER.LEASE_EXPIRES_MS, 0L)
                        .set(LEAF_WORKER.LAST_TIMESTAMP_MS, lastTimestampMs)
                        .set(LEAF_WORKER.UPDATE_TIME, clock.millis())
                        .where(LEAF_WORKER.WORKER_ID.eq(workerId))
                        .and(LEAF_WORKER.OWNER.eq(owner))
                        .execute()));
  }

  /** The row as {@code owner} holds it; read on the connection that wrote it. */
  private static Optional<WorkerLease> read(DSLContext db, int workerId, String owner) {
    Record r =
        db.select(LEAF_WORKER.LEASE_EXPIRES_MS, LEAF_WORKER.LAST_TIMESTAMP_MS)
            .from(LEAF_WORKER)
            .where(LEAF_WORKER.WORKER_ID.eq(workerId))
            .and(LEAF_WORKER.OWNER.eq(owner))
            .fetchOne();
    return r == null
        ? Optional.empty()
        : Optional.of(
            new WorkerLease(
                workerId,
                owner,
                r.get(LEAF_WORKER.LEASE_EXPIRES_MS),
                r.get(LEAF_WORKER.LAST_TIMESTAMP_MS)));
  }

  private DSLContext autocommit(Connection c) throws SQLException {
    if (!c.getAutoCommit()) {
      c.setAutoCommit(true);
    }
    return DSL.using(c, dsl.dialect(), dsl.settings());
  }

  private static <T> T guard(String what, Supplier<T> work) {
    try {
      return work.get();
    } catch (DataAccessException e) {
      RuntimeException mapped = DatabaseErrors.toStoreException(what, e, 1);
      throw mapped instanceof DatabaseErrors.DuplicateKey
          ? new StoreUnavailableException("could not " + what + ": " + e.getMessage(), e)
          : mapped;
    }
  }
}
