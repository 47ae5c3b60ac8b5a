package example.mybatis;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;

/**
 * A table sharded over two H2 databases by ShardingSphere-JDBC, whose key generator of type
 * {@code LEAF} (leaf-shardingsphere) gives each inserted row its {@code order_id} from a Leaf tag.
 */
public final class ShardedOrders implements AutoCloseable {

  /* The rule is ShardingSphere's YAML, as a user would write it: rows go to ds_0 or ds_1 by
   * user_id % 2, and order_id, left out of the INSERT, is filled by the LEAF key generator, which
   * builds its own client from the target property. */

  private static final String TABLE =
      "create table if not exists t_order (order_id bigint primary key, user_id int not null,"
          + " item varchar(64))";

  private final List<String> shardUrls;
  private final DataSource dataSource;

  /**
   * Two shards at {@code shardUrls} (H2 JDBC URLs, tables created here), keys from tag {@code tag}
   * of the Leaf server at {@code leafTarget} (host:port).
   */
  public ShardedOrders(String leafTarget, String tag, List<String> shardUrls)
      throws SQLException {
    this.shardUrls = List.copyOf(shardUrls);
    for (String url : shardUrls) {
      try (Connection c = DriverManager.getConnection(url, "sa", "");
          Statement s = c.createStatement()) {
        s.execute(TABLE);
      }
    }
    try {
      dataSource = YamlShardingSphereDataSourceFactory.createDataSource(
          yaml(leafTarget, tag).getBytes(StandardCharsets.UTF_8));
    } catch (java.io.IOException e) {
      throw new SQLException("ShardingSphere configuration", e);
    }
  }

  private String yaml(String leafTarget, String tag) {
    StringBuilder y = new StringBuilder("databaseName: sharded_orders\ndataSources:\n");
    for (int i = 0; i < shardUrls.size(); i++) {
      y.append("  ds_").append(i).append(":\n")
          .append("    dataSourceClassName: com.zaxxer.hikari.HikariDataSource\n")
          .append("    driverClassName: org.h2.Driver\n")
          .append("    jdbcUrl: ").append(shardUrls.get(i)).append('\n')
          .append("    username: sa\n    password: ''\n    maximumPoolSize: 8\n");
    }
    return y.append("rules:\n- !SHARDING\n  tables:\n    t_order:\n")
        .append("      actualDataNodes: ds_${0..").append(shardUrls.size() - 1)
        .append("}.t_order\n")
        .append("      databaseStrategy:\n        standard:\n")
        .append("          shardingColumn: user_id\n          shardingAlgorithmName: by_user\n")
        .append("      keyGenerateStrategy:\n        column: order_id\n")
        .append("        keyGeneratorName: leaf\n")
        .append("  shardingAlgorithms:\n    by_user:\n      type: INLINE\n      props:\n")
        .append("        algorithm-expression: ds_${user_id % ").append(shardUrls.size())
        .append("}\n")
        .append("  keyGenerators:\n    leaf:\n      type: LEAF\n      props:\n")
        .append("        target: ").append(leafTarget).append('\n')
        .append("        tag: ").append(tag).append('\n')
        .toString();
  }

  /** Inserts an order of {@code userId} through ShardingSphere; returns the key it generated. */
  public long place(int userId, String item) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement p = c.prepareStatement(
            "insert into t_order (user_id, item) values (?, ?)",
            Statement.RETURN_GENERATED_KEYS)) {
      p.setInt(1, userId);
      p.setString(2, item);
      p.executeUpdate();
      try (ResultSet keys = p.getGeneratedKeys()) {
        if (!keys.next()) {
          throw new SQLException("no generated key");
        }
        return keys.getLong(1);
      }
    }
  }

  /** Each shard's order_ids, read from the shard itself (not through ShardingSphere). */
  public List<List<Long>> keysByShard() throws SQLException {
    List<List<Long>> shards = new ArrayList<>();
    for (String url : shardUrls) {
      List<Long> keys = new ArrayList<>();
      try (Connection c = DriverManager.getConnection(url, "sa", "");
          Statement s = c.createStatement();
          ResultSet r = s.executeQuery("select order_id from t_order")) {
        while (r.next()) {
          keys.add(r.getLong(1));
        }
      }
      shards.add(keys);
    }
    return shards;
  }

  @Override
  public void close() throws Exception {
    if (dataSource instanceof AutoCloseable closeable) {
      closeable.close();
    }
  }
}
