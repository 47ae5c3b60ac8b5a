/**
 * Spring Boot auto-configuration for Leaf: a {@link io.leaf.client.LeafClient} and per-tag ID
 * generators ({@link io.leaf.spring.boot.LeafIdGenerators}) from {@code leaf.client.*} properties,
 * snowflake and formatted IDs through the client, the {@code leaf} health indicator, Micrometer
 * meters of the generators, and the Leaf integrations (Hibernate, MyBatis-Plus, ShardingSphere,
 * Jackson) whose library is on the classpath ({@link
 * io.leaf.spring.boot.LeafIntegrationsAutoConfiguration}).
 */
package io.leaf.spring.boot;
