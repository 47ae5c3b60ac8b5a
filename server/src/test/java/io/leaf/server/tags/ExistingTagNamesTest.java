package io.leaf.server.tags;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.leaf.server.LeafServer;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.wiring.LeafServerBuilder;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.IdRange;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.ListTagsRequest;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.Tag;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tags that exist in a Meituan Leaf table but lie outside CreateTag's characters ({@code 订单},
 * {@code a b}, {@code pay/refund}) are served by every RPC but CreateTag, through the production
 * wiring.
 */
abstract class ExistingTagNamesTest {

  static final List<String> NAMES = List.of("订单", "a b", "pay/refund");

  TestDatabase db;
  private LeafServer server;
  private ManagedChannel channel;
  LeafServiceGrpc.LeafServiceBlockingStub leaf;

  abstract TestDatabase database();

  /** Meituan Leaf's DDL as this database takes it, utf8mb4 where the database has charsets. */
  abstract String meituanDdl();

  @BeforeEach
  void setUp() throws Exception {
    db = database();
    execute(meituanDdl());
    for (String name : NAMES) {
      insert(name, 1, 10);
    }
    ServerConfig config =
        ServerConfig.parse(
            new String[] {
              "--db-url",
              db.url,
              "--db-user",
              db.user,
              "--db-password",
              db.password,
              "--db-pool-size",
              "2"
            },
            env -> null);
    String name = InProcessServerBuilder.generateName();
    server =
        LeafServerBuilder.forConfig(config)
            .transport(InProcessServerBuilder.forName(name))
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).build();
    leaf = LeafServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
    }
    if (server != null) {
      server.stop();
    }
    if (db != null) {
      db.close();
    }
  }

  void execute(String sql) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  void insert(String tag, long maxId, int step) throws SQLException {
    try (Connection c = connect();
        PreparedStatement s =
            c.prepareStatement(
                "INSERT INTO leaf_alloc (biz_tag, max_id, step, description) VALUES (?, ?, ?, 'by"
                    + " hand')")) {
      s.setString(1, tag);
      s.setLong(2, maxId);
      s.setInt(3, step);
      s.executeUpdate();
    }
  }

  private Connection connect() throws SQLException {
    return db.pool(1).getConnection();
  }

  @Test
  void everyRpc_tagOutsideCreateTagsCharacters_served() {
    for (String tag : NAMES) {
      assertEquals(
          1,
          leaf.nextId(NextIdRequest.newBuilder().setBizTag(tag).build()).getId(),
          "first NextId of " + tag);
      List<IdRange> ranges =
          leaf.reserveIds(ReserveIdsRequest.newBuilder().setBizTag(tag).setCount(25).build())
              .getRangesList();
      assertEquals(2, ranges.get(0).getStart(), "ReserveIds of " + tag + " continues the segment");
      assertEquals(
          25,
          ranges.stream().mapToLong(r -> r.getEnd() - r.getStart()).sum(),
          "ReserveIds of " + tag);
      List<Long> batch = new ArrayList<>();
      Iterator<IdBatch> it =
          leaf.nextIdBatch(NextIdBatchRequest.newBuilder().setBizTag(tag).setCount(15).build());
      it.forEachRemaining(b -> batch.addAll(b.getIdsList()));
      assertEquals(15, batch.size(), "NextIdBatch of " + tag);
      Tag row = leaf.getTag(GetTagRequest.newBuilder().setBizTag(tag).build()).getTag();
      assertEquals(tag, row.getBizTag(), "GetTag returns the row's own name");
      assertTrue(
          leaf.getTag(GetTagRequest.newBuilder().setBizTag(tag).build()).getCached(),
          tag + " is cached after use");
    }
    Set<String> listed = new HashSet<>();
    leaf.listTags(ListTagsRequest.newBuilder().setPageSize(2).build())
        .getTagsList()
        .forEach(t -> listed.add(t.getBizTag()));
    assertEquals(2, listed.size(), "the first page holds two of the three names");
  }
}
