package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.jooq.SQLDialect;
import org.junit.jupiter.api.Test;

class SegmentTakeTest {

  private static Class<?> takeOf(SQLDialect dialect, String name) {
    return SegmentTake.of(new DatabaseProduct(dialect, name, "1.0", 1, 0), null).getClass();
  }

  @Test
  void of_eachProduct_itsOwnTake() {
    assertEquals(PostgresSegmentTake.class, takeOf(SQLDialect.POSTGRES, "PostgreSQL"));
    assertEquals(MySqlSegmentTake.class, takeOf(SQLDialect.MYSQL, "MySQL"));
    assertEquals(MySqlSegmentTake.class, takeOf(SQLDialect.MARIADB, "MariaDB"));
    assertEquals(H2SegmentTake.class, takeOf(SQLDialect.H2, "H2"));
  }

  @Test
  void stepToAdd_tableStep_rowsStep() {
    assertEquals(200, SegmentTake.stepToAdd("t", 1L, 200, SegmentStore.TABLE_STEP));
    assertEquals(50, SegmentTake.stepToAdd("t", 1L, 200, 50), "a dynamic step is added as asked");
  }

  @Test
  void stepToAdd_nullOrNonPositiveStep_invalidTagState() {
    assertThrows(
        InvalidTagStateException.class,
        () -> SegmentTake.stepToAdd("t", null, 200, SegmentStore.TABLE_STEP),
        "NULL max_id");
    assertThrows(
        InvalidTagStateException.class,
        () -> SegmentTake.stepToAdd("t", 1L, null, 50),
        "NULL step");
    assertThrows(
        InvalidTagStateException.class,
        () -> SegmentTake.stepToAdd("t", 1L, 0, SegmentStore.TABLE_STEP),
        "step 0");
  }
}
