package io.leaf.hibernate;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.hibernate.annotations.IdGeneratorType;

/**
 * A {@code long}/{@code Long} identifier that is a Leaf snowflake ID (time-ordered, no tag):
 * {@code @Id @LeafSnowflakeId long id;}.
 */
@IdGeneratorType(LeafSnowflakeIdGenerator.class)
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface LeafSnowflakeId {}
