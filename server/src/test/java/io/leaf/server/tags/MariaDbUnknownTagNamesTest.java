package io.leaf.server.tags;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.leaf.server.testing.MeituanTables;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.NextIdRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

class MariaDbUnknownTagNamesTest extends UnknownTagNamesTest {

  @Override
  TestDatabase database() {
    return TestDatabases.mariaDb();
  }

  @Override
  boolean leafTableIsAscii() {
    return true;
  }

  @Override
  String narrowTableDdl(int length) {
    return "CREATE TABLE leaf_alloc (id BIGINT NOT NULL AUTO_INCREMENT,"
        + " biz_tag VARCHAR("
        + length
        + ") CHARACTER SET ascii COLLATE ascii_bin NOT NULL,"
        + " max_id BIGINT NOT NULL DEFAULT 1, step INT NOT NULL,"
        + " description VARCHAR(256) CHARACTER SET utf8mb4, update_time BIGINT NOT NULL,"
        + " PRIMARY KEY (id), CONSTRAINT uk_leaf_alloc_biz_tag UNIQUE (biz_tag))";
  }

  /**
   * On a latin1 table the store does not judge names by character, and the database refuses to
   * compare one outside latin1 ("Illegal mix of collations"): no row can have it, so NOT_FOUND.
   */
  @Test
  void latin1MeituanTable_nameOutsideLatin1_notFoundAndNothingHeld() throws Exception {
    execute(MeituanTables.MARIADB + " DEFAULT CHARSET=latin1");
    start();
    for (String name : List.of("订单x", "tag-\uD83D\uDE00")) {
      StatusRuntimeException next =
          assertThrows(
              StatusRuntimeException.class,
              () -> leaf().blocking.nextId(NextIdRequest.newBuilder().setBizTag(name).build()));
      assertEquals(Status.Code.NOT_FOUND, next.getStatus().getCode(), next.getStatus().toString());
      StatusRuntimeException get =
          assertThrows(
              StatusRuntimeException.class,
              () -> leaf().blocking.getTag(GetTagRequest.newBuilder().setBizTag(name).build()));
      assertEquals(Status.Code.NOT_FOUND, get.getStatus().getCode(), get.getStatus().toString());
    }
    assertEquals(1, leaf().allocator.cachedCount(), "only the known tag is held");
  }
}
