package example.mybatis;

import com.baomidou.mybatisplus.core.MybatisConfiguration;
import com.baomidou.mybatisplus.core.MybatisSqlSessionFactoryBuilder;
import com.baomidou.mybatisplus.core.toolkit.GlobalConfigUtils;
import io.leaf.client.LeafClient;
import io.leaf.mybatis.LeafIdentifierGenerator;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.apache.ibatis.datasource.pooled.PooledDataSource;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;

/**
 * MyBatis-Plus set up with Leaf's IdentifierGenerator: {@link #place} inserts an order, whose ID
 * MyBatis-Plus takes from Leaf. Usage: {@code java example.mybatis.Orders [leaf host:port]}.
 */
public final class Orders implements AutoCloseable {

  private final LeafIdentifierGenerator ids;
  private final PooledDataSource dataSource;
  private final SqlSessionFactory sessions;

  /** Orders in the H2 database at {@code jdbcUrl}, their IDs through {@code client}. */
  public Orders(LeafClient client, String jdbcUrl) throws SQLException {
    ids = new LeafIdentifierGenerator(client);
    dataSource = new PooledDataSource("org.h2.Driver", jdbcUrl, "sa", "");
    dataSource.setPoolMaximumActiveConnections(10);
    createTable(dataSource);
    MybatisConfiguration configuration = new MybatisConfiguration(
        new Environment("example", new JdbcTransactionFactory(), dataSource));
    GlobalConfigUtils.getGlobalConfig(configuration).setIdentifierGenerator(ids);
    configuration.addMapper(OrderMapper.class);
    sessions = new MybatisSqlSessionFactoryBuilder().build(configuration);
  }

  private static void createTable(DataSource dataSource) throws SQLException {
    try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
      s.execute("create table if not exists orders (id bigint primary key, item varchar(64))");
    }
  }

  /** Inserts an order of {@code item}; returns it with its Leaf ID. */
  public Order place(String item) {
    try (SqlSession session = sessions.openSession(true)) {
      Order order = new Order(item);
      session.getMapper(OrderMapper.class).insert(order);
      return order;
    }
  }

  /** The orders table's distinct IDs. */
  public long distinctIds() throws SQLException {
    try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
        var r = s.executeQuery("select count(distinct id) from orders")) {
      r.next();
      return r.getLong(1);
    }
  }

  @Override
  public void close() {
    ids.close();
    dataSource.forceCloseAll();
  }

  public static void main(String[] args) throws Exception {
    String target = args.length > 0 ? args[0] : "localhost:50051";
    try (LeafClient client = LeafClient.forTarget(target).usePlaintext().build();
        Orders orders = new Orders(client, "jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1")) {
      for (int i = 0; i < 3; i++) {
        System.out.println("order " + orders.place("item " + i).getId());
      }
    }
  }
}
