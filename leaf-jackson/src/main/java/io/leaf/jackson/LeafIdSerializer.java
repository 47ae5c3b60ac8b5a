package io.leaf.jackson;

import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ser.std.StdSerializer;

/**
 * Writes a {@code long}/{@code Long} as a JSON number while JavaScript holds it exactly, and as a
 * decimal string past {@code 2^53 - 1} (either sign).
 */
public final class LeafIdSerializer extends StdSerializer<Long> {

  /** The one instance; it holds no state. */
  public static final LeafIdSerializer INSTANCE = new LeafIdSerializer();

  /** For {@code @JsonSerialize(using = …)}; {@link #INSTANCE} otherwise. */
  public LeafIdSerializer() {
    super(Long.class);
  }

  @Override
  public void serialize(Long value, JsonGenerator gen, SerializationContext context) {
    long v = value;
    if (SafeIntegers.isSafe(v)) {
      gen.writeNumber(v);
    } else {
      gen.writeString(Long.toString(v));
    }
  }
}
