package io.leaf.jackson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.json.JsonMapper;

class LeafIdJsonTest {

  private static final long MAX_SAFE = 9_007_199_254_740_991L;

  /** A DTO with one annotated ID and one plain long. */
  public static final class Order {
    @LeafIdJson public long id;
    @LeafIdJson public Long parentId;
    public long quantity;
  }

  private final JsonMapper plain = JsonMapper.builder().build();

  @Test
  void serialize_annotatedIdPastSafeRange_writesString() {
    Order o = new Order();
    o.id = MAX_SAFE + 1;
    o.parentId = Long.MIN_VALUE;
    o.quantity = MAX_SAFE + 1;
    assertEquals(
        "{\"id\":\"9007199254740992\",\"parentId\":\"-9223372036854775808\","
            + "\"quantity\":9007199254740992}",
        plain.writeValueAsString(o),
        "annotated IDs past 2^53-1 as strings, the plain long untouched");
  }

  @Test
  void serialize_annotatedIdWithinSafeRange_writesNumber() {
    Order o = new Order();
    o.id = MAX_SAFE;
    o.parentId = -MAX_SAFE;
    assertEquals(
        "{\"id\":9007199254740991,\"parentId\":-9007199254740991,\"quantity\":0}",
        plain.writeValueAsString(o),
        "the largest safe integers stay numbers");
  }

  @Test
  void serialize_nullAnnotatedId_writesNull() {
    Order o = new Order();
    assertEquals(
        "{\"id\":0,\"parentId\":null,\"quantity\":0}",
        plain.writeValueAsString(o),
        "a null Long stays null");
  }

  @Test
  void deserialize_stringOrNumber_readsTheSameId() {
    Order fromString =
        plain.readValue("{\"id\":\"9223372036854775807\",\"parentId\":\"12\"}", Order.class);
    Order fromNumber = plain.readValue("{\"id\":9223372036854775807,\"parentId\":12}", Order.class);
    assertEquals(Long.MAX_VALUE, fromString.id, "from a string");
    assertEquals(Long.MAX_VALUE, fromNumber.id, "from a number");
    assertEquals(12L, fromString.parentId, "a Long from a string");
    assertEquals(12L, fromNumber.parentId, "a Long from a number");
  }

  @Test
  void deserialize_notAnId_refused() {
    assertThrows(
        DatabindException.class,
        () -> plain.readValue("{\"id\":\"12x\"}", Order.class),
        "not a number");
    assertThrows(
        DatabindException.class,
        () -> plain.readValue("{\"id\":\"9223372036854775808\"}", Order.class),
        "past Long");
    assertThrows(
        DatabindException.class,
        () -> plain.readValue("{\"id\":9223372036854775808}", Order.class),
        "past Long, a number");
    assertThrows(
        DatabindException.class,
        () -> plain.readValue("{\"id\":1.5}", Order.class),
        "not an integer");
  }

  @Test
  void roundTrip_everyEdge_keepsTheValue() {
    long[] edges = {
      0,
      1,
      -1,
      MAX_SAFE,
      MAX_SAFE + 1,
      -MAX_SAFE,
      -MAX_SAFE - 1,
      Long.MAX_VALUE,
      Long.MIN_VALUE,
      1L << 62
    };
    for (long edge : edges) {
      Order o = new Order();
      o.id = edge;
      o.parentId = edge;
      Order back = plain.readValue(plain.writeValueAsString(o), Order.class);
      assertEquals(edge, back.id, "long " + edge);
      assertEquals(edge, back.parentId, "Long " + edge);
    }
  }
}
