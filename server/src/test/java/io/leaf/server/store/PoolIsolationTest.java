package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * The pool keeps connecting after its first connection failed to report the isolation level (a
 * database too slow to answer within the validation timeout): the level is stated, not detected.
 */
class PoolIsolationTest {

  @Test
  void create_firstIsolationReadFailsWithConnectionError_laterConnectionsStillWork()
      throws Exception {
    String url = "jdbc:h2:mem:pool-isolation-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
    HikariConfig config = DataSources.config(url, "sa", "", 2);
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL(DataSources.connectionUrl(url));
    h2.setUser("sa");
    config.setJdbcUrl(null);
    config.setDataSource(failingFirstIsolationRead(h2));
    config.setMinimumIdle(0);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      for (int i = 0; i < 3; i++) {
        try (Connection c = pool.getConnection()) {
          assertEquals(Connection.TRANSACTION_READ_COMMITTED, c.getTransactionIsolation());
        }
        pool.getHikariPoolMXBean().softEvictConnections(); // the next one is a new connection
      }
    }
  }

  /** {@code target}, whose first connection's first getTransactionIsolation fails as a reset. */
  private static DataSource failingFirstIsolationRead(DataSource target) {
    AtomicBoolean failed = new AtomicBoolean();
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object out = invoke(target, method, args);
              if (!method.getName().equals("getConnection")) {
                return out;
              }
              Connection real = (Connection) out;
              return Proxy.newProxyInstance(
                  Connection.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (p, m, a) -> {
                    if (m.getName().equals("getTransactionIsolation")
                        && failed.compareAndSet(false, true)) {
                      throw new SQLException("read timed out", "08006");
                    }
                    return invoke(real, m, a);
                  });
            });
  }

  private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
