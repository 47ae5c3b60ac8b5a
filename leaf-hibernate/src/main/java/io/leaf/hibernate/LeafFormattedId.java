package io.leaf.hibernate;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.hibernate.annotations.IdGeneratorType;

/**
 * A {@code String} identifier that is the next formatted number of the Leaf tag {@link #value()}
 * (the tag must have a format): {@code @Id @LeafFormattedId("invoice") String number;}.
 */
@IdGeneratorType(LeafFormattedIdGenerator.class)
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface LeafFormattedId {

  /** The Leaf business tag ({@code biz_tag}) whose format numbers the rows. */
  String value();
}
