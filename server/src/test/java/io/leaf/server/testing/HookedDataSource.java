package io.leaf.server.testing;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that lets a test act at exact points of the store's conversation with the
 * database: when a connection is borrowed, and right after an {@code UPDATE leaf_alloc} statement
 * returned (before the store's next statement or commit).
 */
public final class HookedDataSource implements DataSource {

  /** A test action on the raw connection; may throw. */
  public interface Hook {
    void run(Connection connection) throws Exception;
  }

  private final DataSource delegate;
  private final AtomicInteger borrows = new AtomicInteger();
  private final AtomicInteger leafAllocStatements = new AtomicInteger();
  private volatile Hook onBorrow;
  private volatile Hook afterUpdate;

  public HookedDataSource(DataSource delegate) {
    this.delegate = delegate;
  }

  /** Runs {@code hook} on the next borrowed connection only, before the store sees it. */
  public void onNextBorrow(Hook hook) {
    this.onBorrow = hook;
  }

  /** Runs {@code hook} once, right after the next {@code UPDATE leaf_alloc} returned. */
  public void afterNextUpdate(Hook hook) {
    this.afterUpdate = hook;
  }

  /** Connections handed out so far. */
  public int borrows() {
    return borrows.get();
  }

  /**
   * Statements prepared so far whose SQL names {@code leaf_alloc} (a health check's {@code SELECT
   * 1} is not one): the store's queries of tags.
   */
  public int leafAllocStatements() {
    return leafAllocStatements.get();
  }

  @Override
  public Connection getConnection() throws SQLException {
    return wrap(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return wrap(delegate.getConnection(user, password));
  }

  private Connection wrap(Connection raw) {
    borrows.incrementAndGet();
    Hook borrow = onBorrow;
    onBorrow = null;
    if (borrow != null) {
      runHook(borrow, raw);
    }
    InvocationHandler handler =
        (proxy, method, args) -> {
          Object result = invoke(raw, method, args);
          if (result instanceof Statement s
              && args != null
              && args.length > 0
              && args[0] instanceof String sql) {
            return statement(raw, s, sql);
          }
          return result;
        };
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
  }

  /** Prepared statements of an UPDATE on leaf_alloc fire the hook after they execute. */
  private Object statement(Connection raw, Statement statement, String sql) {
    if (sql.toLowerCase(Locale.ROOT).contains("leaf_alloc")) {
      leafAllocStatements.incrementAndGet();
    }
    if (!(statement instanceof PreparedStatement)
        || !sql.strip().toLowerCase(Locale.ROOT).startsWith("update leaf_alloc")) {
      return statement;
    }
    InvocationHandler handler =
        (proxy, method, args) -> {
          Object result = invoke(statement, method, args);
          if (method.getName().startsWith("execute")) {
            Hook hook = afterUpdate;
            afterUpdate = null;
            if (hook != null) {
              runHook(hook, raw);
            }
          }
          return result;
        };
    return Proxy.newProxyInstance(
        PreparedStatement.class.getClassLoader(),
        new Class<?>[] {PreparedStatement.class},
        handler);
  }

  private static void runHook(Hook hook, Connection raw) {
    try {
      hook.run(raw);
    } catch (Exception e) {
      throw new IllegalStateException("test hook failed", e);
    }
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return delegate.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return delegate.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return delegate.isWrapperFor(iface);
  }
}
