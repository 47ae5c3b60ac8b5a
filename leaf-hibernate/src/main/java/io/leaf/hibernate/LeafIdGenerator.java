package io.leaf.hibernate;

import java.lang.reflect.Member;
import java.util.EnumSet;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.EventTypeSets;
import org.hibernate.generator.GeneratorCreationContext;

/** {@link LeafId}'s generator: the tag's next ID from its cached generator in {@link LeafIds}. */
public final class LeafIdGenerator implements BeforeExecutionGenerator {

  private static final long serialVersionUID = 1L;

  private final String bizTag;

  /** Called by Hibernate for each {@code @LeafId} identifier. */
  public LeafIdGenerator(LeafId config, Member member, GeneratorCreationContext context) {
    MemberTypes.require(member, "LeafId", long.class, Long.class);
    if (config.value().isEmpty()) {
      throw new IllegalArgumentException(
          "@LeafId on "
              + member.getDeclaringClass().getName()
              + "."
              + member.getName()
              + " needs a tag: @LeafId(\"order\")");
    }
    this.bizTag = config.value();
  }

  @Override
  public Object generate(
      SharedSessionContractImplementor session,
      Object owner,
      Object currentValue,
      EventType eventType) {
    return LeafIds.nextId(bizTag);
  }

  @Override
  public EnumSet<EventType> getEventTypes() {
    return EventTypeSets.INSERT_ONLY;
  }
}
