package io.leaf.mybatis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableId;
import com.baomidou.mybatisplus.annotation.TableName;
import com.baomidou.mybatisplus.core.MybatisConfiguration;
import com.baomidou.mybatisplus.core.MybatisSqlSessionFactoryBuilder;
import com.baomidou.mybatisplus.core.mapper.BaseMapper;
import com.baomidou.mybatisplus.core.toolkit.GlobalConfigUtils;
import io.leaf.client.LeafClient;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.ibatis.datasource.pooled.PooledDataSource;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** MyBatis-Plus inserts into H2 with IdType.ASSIGN_ID, the IDs from the packaged Leaf server. */
@Tag("slow")
class LeafIdentifierGeneratorTest {

  /** An entity whose tag is its table name. */
  @TableName("orders")
  public static class Order {
    @TableId(type = IdType.ASSIGN_ID)
    public Long id;

    public String item;
  }

  /** An entity without @TableName, mapped to a tag. */
  public static class Invoice {
    @TableId(type = IdType.ASSIGN_ID)
    public Long id;
  }

  /** The mapper of {@link Order}. */
  public interface OrderMapper extends BaseMapper<Order> {}

  private static PackagedLeafServer server;
  private static LeafClient client;
  private static LeafIdentifierGenerator generator;
  private static PooledDataSource dataSource;
  private static SqlSessionFactory sessions;

  @BeforeAll
  static void start() throws Exception {
    server = new PackagedLeafServer();
    client = LeafClient.forTarget(server.target()).usePlaintext().build();
    client.createTag("orders", 0, 100, "mybatis orders");
    generator = new LeafIdentifierGenerator(client, Map.of(Invoice.class, "invoice"));
    dataSource =
        new PooledDataSource(
            "org.h2.Driver",
            "jdbc:h2:mem:leaf-mybatis-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
            "sa",
            "");
    dataSource.setPoolMaximumActiveConnections(10);
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute("create table orders (id bigint primary key, item varchar(20))");
    }
    MybatisConfiguration configuration =
        new MybatisConfiguration(new Environment("test", new JdbcTransactionFactory(), dataSource));
    GlobalConfigUtils.getGlobalConfig(configuration).setIdentifierGenerator(generator);
    configuration.addMapper(OrderMapper.class);
    sessions = new MybatisSqlSessionFactoryBuilder().build(configuration);
  }

  @AfterAll
  static void stop() throws Exception {
    if (generator != null) {
      generator.close();
    }
    if (dataSource != null) {
      dataSource.forceCloseAll();
    }
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void insert_10000OrdersFrom8Threads_noDuplicateKey() throws Exception {
    Set<Long> ids = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      int thread = t;
      done.add(
          pool.submit(
              () -> {
                for (int i = 0; i < 1250; i++) {
                  try (SqlSession session = sessions.openSession(true)) {
                    Order o = new Order();
                    o.item = "t" + thread;
                    session.getMapper(OrderMapper.class).insert(o);
                    ids.add(o.id);
                  }
                }
              }));
    }
    for (Future<?> f : done) {
      f.get(5, TimeUnit.MINUTES); // a duplicate key would fail its insert here
    }
    pool.shutdown();
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("select count(distinct id) from orders")) {
      r.next();
      assertEquals(10_000, r.getLong(1), "distinct keys stored");
    }
    assertEquals(10_000, ids.size(), "distinct IDs handed to the entities");
    assertTrue(ids.stream().allMatch(id -> id >= 1), "Leaf segment IDs start at 1");
  }

  @Test
  void tagOf_tableNameOrMapping_namesTheTag() {
    assertEquals("orders", generator.tagOf(Order.class), "@TableName");
    assertEquals("invoice", generator.tagOf(Invoice.class), "the mapping");
    assertThrows(
        IllegalStateException.class, () -> generator.tagOf(String.class), "a class with neither");
  }
}
