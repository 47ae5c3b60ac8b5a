package io.leaf.server.testing;

import com.zaxxer.hikari.HikariDataSource;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.JooqSegmentStore;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/** A test database: its URL and credentials; {@link #close()} closes pools and drops it. */
public final class TestDatabase implements AutoCloseable {

  /** Cleanup that may throw. */
  public interface Cleanup {
    void run() throws Exception;
  }

  public final String url;
  public final String user;
  public final String password;
  private final Cleanup cleanup;
  private final List<HikariDataSource> pools = new ArrayList<>();
  private boolean closed;

  TestDatabase(String url, String user, String password, Cleanup cleanup) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.cleanup = cleanup;
  }

  /** A pool on this database, closed with it. */
  public synchronized HikariDataSource pool(int size) {
    HikariDataSource ds = DataSources.create(url, user, password, size);
    pools.add(ds);
    return ds;
  }

  /** A store on a new pool with its schema applied. */
  public JooqSegmentStore store(int poolSize) {
    JooqSegmentStore store =
        new JooqSegmentStore(pool(poolSize), DataSources.dialectOf(url), InstantSource.system());
    store.createSchemaIfMissing();
    return store;
  }

  @Override
  public synchronized void close() throws Exception {
    if (closed) {
      return;
    }
    closed = true;
    pools.forEach(HikariDataSource::close);
    pools.clear();
    cleanup.run();
  }
}
