package io.leaf.jackson;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.deser.std.StdDeserializer;

/**
 * Reads a {@code long}/{@code Long} from a JSON integer or a decimal string of one (what {@link
 * LeafIdSerializer} writes); anything else, or a value past {@code Long}'s range, is refused with
 * the input's position.
 */
public final class LeafIdDeserializer extends StdDeserializer<Long> {

  /** The one instance; it holds no state. */
  public static final LeafIdDeserializer INSTANCE = new LeafIdDeserializer();

  /** For {@code @JsonDeserialize(using = …)}; {@link #INSTANCE} otherwise. */
  public LeafIdDeserializer() {
    super(Long.class);
  }

  @Override
  public Long deserialize(JsonParser p, DeserializationContext context) {
    JsonToken token = p.currentToken();
    if (token == JsonToken.VALUE_NUMBER_INT) {
      if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
        return (Long)
            context.handleWeirdNumberValue(
                Long.class, p.getNumberValue(), "a Leaf ID must fit a signed 64-bit long");
      }
      return p.getLongValue();
    }
    if (token == JsonToken.VALUE_STRING) {
      String text = p.getString().trim();
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException e) {
        return (Long)
            context.handleWeirdStringValue(
                Long.class, text, "a Leaf ID must be a decimal 64-bit integer");
      }
    }
    return (Long) context.handleUnexpectedToken(Long.class, p);
  }
}
