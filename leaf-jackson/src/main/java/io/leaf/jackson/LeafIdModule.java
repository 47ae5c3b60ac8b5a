package io.leaf.jackson;

import tools.jackson.databind.module.SimpleModule;

/**
 * A Jackson module treating every {@code long} and {@code Long} as a Leaf ID ({@link LeafIdJson}'s
 * rules without the annotation): numbers within JavaScript's safe integers, strings past them; both
 * read back.
 */
public final class LeafIdModule extends SimpleModule {

  private static final long serialVersionUID = 1L;

  /** The module, ready to register: {@code JsonMapper.builder().addModule(new LeafIdModule())}. */
  public LeafIdModule() {
    super("leaf-ids");
    addSerializer(Long.class, LeafIdSerializer.INSTANCE);
    addSerializer(Long.TYPE, LeafIdSerializer.INSTANCE);
    addDeserializer(Long.class, LeafIdDeserializer.INSTANCE);
    addDeserializer(Long.TYPE, LeafIdDeserializer.INSTANCE);
  }
}
