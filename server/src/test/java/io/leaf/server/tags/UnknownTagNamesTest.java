package io.leaf.server.tags;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Ticker;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.server.testing.HookedDataSource;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.Ports;
import io.leaf.server.testing.TestDatabase;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.InitCacheRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.UpdateStepRequest;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Names the table's {@code biz_tag} column cannot hold (outside its character set, longer than it)
 * are NOT_FOUND (gRPC) and 404 (HTTP) on every RPC that names a tag, without a statement on {@code
 * leaf_alloc}, through the production store and server; they leave nothing cached.
 */
abstract class UnknownTagNamesTest {

  /** Names outside ASCII: Chinese, an accent, an emoji (outside the BMP), a right-to-left mark. */
  static final List<String> NON_ASCII = List.of("订单x", "café", "tag-\uD83D\uDE00", "a\u202Eb");

  /** The narrow column's length in the tests that use one. */
  static final int NARROW = 32;

  private TestDatabase db;
  private HookedDataSource source;
  private InProcessLeaf leaf;
  private int httpPort;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(20))
          .build();

  abstract TestDatabase database();

  /** Whether the table Leaf creates on this database holds ASCII names only. */
  abstract boolean leafTableIsAscii();

  /** Leaf's table with a {@code biz_tag} of {@code length} characters, in this database's DDL. */
  abstract String narrowTableDdl(int length);

  @BeforeEach
  void setUp() {
    db = database();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (leaf != null) {
      leaf.close();
    }
    if (db != null) {
      db.close();
    }
  }

  /** Opens the store on the table there is (creating Leaf's if none), serves, and issues known. */
  void start() throws Exception {
    source = new HookedDataSource(db.pool(4));
    JooqSegmentStore store =
        new JooqSegmentStore(source, DataSources.dialectOf(db.url), InstantSource.system());
    store.createSchemaIfMissing();
    httpPort = Ports.free();
    leaf =
        new InProcessLeaf(
            store,
            Ticker.systemTicker(),
            EngineConfig.DEFAULTS,
            "--http-port",
            Integer.toString(httpPort));
    leaf.blocking.createTag(CreateTagRequest.newBuilder().setBizTag("known").setStep(10).build());
    assertEquals(
        1,
        leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag("known").build()).getId(),
        "the known tag issues");
  }

  InProcessLeaf leaf() {
    return leaf;
  }

  void execute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(db.url, db.user, db.password);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  @Test
  void leafTable_nonAsciiNames_notFoundOnEveryRpcAndHttp() throws Exception {
    start();
    for (String name : NON_ASCII) {
      int before = source.leafAllocStatements();
      assertNotFoundEverywhere(name);
      if (leafTableIsAscii()) {
        assertEquals(
            before,
            source.leafAllocStatements(),
            "no statement on leaf_alloc for " + name + ", which an ASCII column cannot hold");
      }
    }
    assertNothingCachedButKnown();
  }

  @Test
  void narrowTable_overLongNames_notFoundWithoutQuery() throws Exception {
    execute(narrowTableDdl(NARROW));
    start();
    List<String> overLong =
        List.of("x".repeat(NARROW + 1), "y".repeat(128), "订".repeat(NARROW + 1));
    for (String name : overLong) {
      int before = source.leafAllocStatements();
      assertNotFoundEverywhere(name);
      assertEquals(
          before,
          source.leafAllocStatements(),
          "no statement on leaf_alloc for a name of " + name.length() + " characters");
    }
    assertNothingCachedButKnown();
    // Trailing spaces do not count: a PAD SPACE collation may find "known" under such a name,
    // so the database is asked.
    int before = source.leafAllocStatements();
    try {
      leaf.blocking.getTag(
          GetTagRequest.newBuilder().setBizTag("known" + " ".repeat(NARROW)).build());
    } catch (StatusRuntimeException e) {
      assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode(), e.getStatus().toString());
    }
    assertTrue(
        source.leafAllocStatements() > before,
        "a name longer than the column only by trailing spaces is looked up");
  }

  private void assertNotFoundEverywhere(String name) throws Exception {
    assertNotFound(
        name,
        "NextId",
        () -> leaf.blocking.nextId(NextIdRequest.newBuilder().setBizTag(name).build()));
    assertNotFound(
        name,
        "ReserveIds",
        () ->
            leaf.blocking.reserveIds(
                ReserveIdsRequest.newBuilder().setBizTag(name).setCount(5).build()));
    assertNotFound(
        name,
        "InitCache",
        () -> leaf.blocking.initCache(InitCacheRequest.newBuilder().setBizTag(name).build()));
    assertNotFound(
        name,
        "GetTag",
        () -> leaf.blocking.getTag(GetTagRequest.newBuilder().setBizTag(name).build()));
    assertNotFound(
        name,
        "UpdateStep",
        () ->
            leaf.blocking.updateStep(
                UpdateStepRequest.newBuilder().setBizTag(name).setStep(5).build()));
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(
                        "http://127.0.0.1:"
                            + httpPort
                            + "/api/segment/get/"
                            + URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20")))
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(404, r.statusCode(), "HTTP GET of " + name + ": " + r.body());
  }

  private static void assertNotFound(String name, String rpc, Supplier<?> call) {
    StatusRuntimeException e =
        assertThrows(StatusRuntimeException.class, call::get, rpc + " of " + name);
    assertEquals(
        Status.Code.NOT_FOUND, e.getStatus().getCode(), rpc + " of " + name + ": " + e.getStatus());
    assertTrue(
        e.getStatus().getDescription().contains("biz_tag not found"),
        rpc + " of " + name + ": " + e.getStatus());
  }

  private void assertNothingCachedButKnown() {
    assertEquals(List.of("known"), leaf.allocator.cachedTags(100), "failed lookups hold no buffer");
    assertEquals(1, leaf.allocator.cachedCount(), "tags held counts the known tag only");
  }
}
