package io.leaf.jackson;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

class LeafIdModuleTest {

  /** A DTO without annotations. */
  public static final class Row {
    public long id;
    public Long other;
    public int count;
  }

  private final JsonMapper mapper = JsonMapper.builder().addModule(new LeafIdModule()).build();

  @Test
  void serialize_everyLongPastSafeRange_writesString() {
    Row r = new Row();
    r.id = 1L << 62;
    r.other = 42L;
    r.count = 7;
    assertEquals(
        "{\"count\":7,\"id\":\"4611686018427387904\",\"other\":42}",
        JsonMapper.builder()
            .addModule(new LeafIdModule())
            .enable(tools.jackson.databind.MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .build()
            .writeValueAsString(r),
        "a long past 2^53-1 as a string, a small Long as a number, an int untouched");
  }

  @Test
  void serialize_collectionsOfLongs_eachByItsValue() {
    assertEquals(
        "[1,\"9007199254740992\"]",
        mapper.writeValueAsString(List.of(1L, 9_007_199_254_740_992L)),
        "list elements");
    assertEquals(
        "{\"a\":\"-9007199254740992\"}",
        mapper.writeValueAsString(Map.of("a", -9_007_199_254_740_992L)),
        "map values");
  }

  @Test
  void deserialize_stringsAndNumbers_readAsLongs() {
    Row r =
        mapper.readValue("{\"id\":\"4611686018427387904\",\"other\":\"5\",\"count\":1}", Row.class);
    assertEquals(1L << 62, r.id, "long from a string");
    assertEquals(5L, r.other, "Long from a string");
    List<Long> ids = mapper.readValue("[\"9007199254740993\", 3]", new TypeReference<>() {});
    assertEquals(List.of(9_007_199_254_740_993L, 3L), ids, "list elements from either");
  }
}
