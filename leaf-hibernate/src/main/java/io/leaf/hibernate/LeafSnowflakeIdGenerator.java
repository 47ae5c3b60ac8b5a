package io.leaf.hibernate;

import java.lang.reflect.Member;
import java.util.EnumSet;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.EventTypeSets;
import org.hibernate.generator.GeneratorCreationContext;

/** {@link LeafSnowflakeId}'s generator: the next snowflake ID of the registered client. */
public final class LeafSnowflakeIdGenerator implements BeforeExecutionGenerator {

  private static final long serialVersionUID = 1L;

  /** Called by Hibernate for each {@code @LeafSnowflakeId} identifier. */
  public LeafSnowflakeIdGenerator(
      LeafSnowflakeId config, Member member, GeneratorCreationContext context) {
    MemberTypes.require(member, "LeafSnowflakeId", long.class, Long.class);
  }

  @Override
  public Object generate(
      SharedSessionContractImplementor session,
      Object owner,
      Object currentValue,
      EventType eventType) {
    return LeafIds.client().nextSnowflakeId();
  }

  @Override
  public EnumSet<EventType> getEventTypes() {
    return EventTypeSets.INSERT_ONLY;
  }
}
