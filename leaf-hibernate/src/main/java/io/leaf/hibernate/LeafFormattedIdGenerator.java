package io.leaf.hibernate;

import java.lang.reflect.Member;
import java.util.EnumSet;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.EventTypeSets;
import org.hibernate.generator.GeneratorCreationContext;

/** {@link LeafFormattedId}'s generator: the tag's next formatted number, one call each. */
public final class LeafFormattedIdGenerator implements BeforeExecutionGenerator {

  private static final long serialVersionUID = 1L;

  private final String bizTag;

  /** Called by Hibernate for each {@code @LeafFormattedId} identifier. */
  public LeafFormattedIdGenerator(
      LeafFormattedId config, Member member, GeneratorCreationContext context) {
    MemberTypes.require(member, "LeafFormattedId", String.class);
    if (config.value().isEmpty()) {
      throw new IllegalArgumentException(
          "@LeafFormattedId on "
              + member.getDeclaringClass().getName()
              + "."
              + member.getName()
              + " needs a tag: @LeafFormattedId(\"invoice\")");
    }
    this.bizTag = config.value();
  }

  @Override
  public Object generate(
      SharedSessionContractImplementor session,
      Object owner,
      Object currentValue,
      EventType eventType) {
    return LeafIds.client().nextFormattedId(bizTag);
  }

  @Override
  public EnumSet<EventType> getEventTypes() {
    return EventTypeSets.INSERT_ONLY;
  }
}
