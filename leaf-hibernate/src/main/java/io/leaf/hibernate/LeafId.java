package io.leaf.hibernate;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.hibernate.annotations.IdGeneratorType;

/**
 * A {@code long}/{@code Long} identifier taken from the Leaf tag {@link #value()}, through the
 * tag's {@link io.leaf.client.CachedIdGenerator} in {@link LeafIds}: {@code @Id @LeafId("order")
 * long id;}.
 */
@IdGeneratorType(LeafIdGenerator.class)
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface LeafId {

  /** The Leaf business tag ({@code biz_tag}) the IDs come from. */
  String value();
}
