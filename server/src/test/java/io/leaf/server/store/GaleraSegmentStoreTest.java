package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.leaf.server.testing.GaleraCluster;
import io.leaf.server.testing.HookedDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The segment take on a Galera cluster, step by step: a write committed on node 1 that conflicts
 * with node 2's take, at the exact moments where it used to turn node 2's aborted transaction into
 * a range node 1 owns.
 */
@Timeout(120)
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("galera")
class GaleraSegmentStoreTest {

  private static final String TAG = "galera";
  private static final int STEP = 50;

  private GaleraCluster cluster;
  private GaleraCluster.Database db;
  private final List<HikariDataSource> pools = new ArrayList<>();
  private JooqSegmentStore node1;
  private HookedDataSource node2Source;
  private JooqSegmentStore node2;

  @BeforeEach
  void setUp() {
    cluster = GaleraCluster.get();
    db = cluster.createDatabase();
    node1 = new JooqSegmentStore(pool(1, 2), SQLDialect.MYSQL, InstantSource.system());
    node1.createSchemaIfMissing();
    node1.createTag(TAG, 1, STEP, null);
    node2Source = new HookedDataSource(pool(2, 1));
    node2 = new JooqSegmentStore(node2Source, SQLDialect.MYSQL, InstantSource.system());
    awaitOnNode(2, 1);
  }

  @AfterEach
  void tearDown() {
    pools.forEach(HikariDataSource::close);
    if (db != null) {
      db.close();
    }
  }

  @Test
  void nextSegment_otherNodeCommitsRightAfterOurUpdate_neverReturnsItsRange() {
    AtomicReference<SegmentRange> other = new AtomicReference<>();
    // The moment of the reported duplicates: node 2's UPDATE has run, and before node 2's next
    // statement node 1 commits a write to the same row, which Galera applies on node 2.
    node2Source.afterNextUpdate(
        c -> {
          other.set(node1.nextSegment(TAG, STEP));
          awaitOnNode(2, other.get().end());
        });

    SegmentRange ours = node2.nextSegment(TAG, STEP);

    assertDisjoint(ours, other.get());
    assertEquals(1 + 2 * STEP, maxIdOnNode(1), "two segments taken in all, one by each node");
  }

  @Test
  void nextSegment_connectionWhoseTransactionAnotherNodeAborted_isRetriedAndNeverOverlaps() {
    AtomicReference<SegmentRange> other = new AtomicReference<>();
    AtomicInteger hookRuns = new AtomicInteger();
    // Node 2's connection holds an open write on the row when node 1 commits a conflicting one:
    // Galera aborts node 2's transaction, and the next statement on that connection is the take.
    node2Source.onNextBorrow(
        c -> {
          hookRuns.incrementAndGet();
          c.setAutoCommit(false);
          try (Statement s = c.createStatement()) {
            s.executeUpdate(
                "UPDATE leaf_alloc SET description = 'node 2 was here' WHERE biz_tag = '"
                    + TAG
                    + "'");
          }
          other.set(node1.nextSegment(TAG, STEP));
          awaitOnNode(2, other.get().end());
        });

    SegmentRange ours = node2.nextSegment(TAG, STEP);

    assertEquals(1, hookRuns.get(), "the hook ran");
    assertTrue(
        node2Source.borrows() >= 2,
        "the aborted first attempt was retried on a fresh"
            + " borrow; connections borrowed: "
            + node2Source.borrows());
    assertDisjoint(ours, other.get());
    assertEquals(other.get().end(), ours.start(), "node 2 continues right after node 1's range");
    assertEquals(1 + 2 * STEP, maxIdOnNode(1), "two segments taken in all, one by each node");
  }

  private static void assertDisjoint(SegmentRange a, SegmentRange b) {
    assertTrue(
        a.end() <= b.start() || b.end() <= a.start(),
        "ranges overlap: node 2 took ["
            + a.start()
            + ", "
            + a.end()
            + "), node 1 took ["
            + b.start()
            + ", "
            + b.end()
            + ")");
  }

  private HikariDataSource pool(int node, int size) {
    HikariDataSource pool =
        DataSources.create(
            cluster.nodeUrl(node, db.name), GaleraCluster.USER, GaleraCluster.PASSWORD, size);
    pools.add(pool);
    return pool;
  }

  private long maxIdOnNode(int node) {
    try (Connection c =
            DriverManager.getConnection(
                cluster.nodeUrl(node, db.name), GaleraCluster.USER, GaleraCluster.PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("SET SESSION wsrep_sync_wait = 1");
      try (ResultSet r =
          s.executeQuery("SELECT max_id FROM leaf_alloc WHERE biz_tag = '" + TAG + "'")) {
        return r.next() ? r.getLong(1) : -1;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Waits until {@code node} has applied every write set up to a max_id of at least {@code min}.
   */
  private void awaitOnNode(int node, long min) {
    long maxId = maxIdOnNode(node);
    assertTrue(maxId >= min, "node " + node + " sees max_id " + maxId + ", expected >= " + min);
  }
}
