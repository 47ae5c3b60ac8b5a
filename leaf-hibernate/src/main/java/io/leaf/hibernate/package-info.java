/**
 * Hibernate ORM identifiers from Leaf: {@link io.leaf.hibernate.LeafId} (segment IDs of a tag, from
 * a {@link io.leaf.client.CachedIdGenerator}), {@link io.leaf.hibernate.LeafFormattedId} (a tag's
 * formatted numbers) and {@link io.leaf.hibernate.LeafSnowflakeId}, all Hibernate 6.2+
 * {@code @IdGeneratorType} annotations.
 *
 * <p>The generators find their {@link io.leaf.client.LeafClient} in {@link
 * io.leaf.hibernate.LeafIds}, registered once at start (the Spring Boot starter does it when
 * Hibernate is on the classpath); they look it up on each insert, so the registration may come
 * after Hibernate has started. An ID is taken just before the insert, so a rolled-back insert
 * leaves a gap, never a repeat.
 */
package io.leaf.hibernate;
