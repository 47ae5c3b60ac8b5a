/**
 * Spring Boot auto-configuration for Leaf: a {@link io.leaf.client.LeafClient} and per-tag ID
 * generators ({@link io.leaf.spring.boot.LeafIdGenerators}) from {@code leaf.client.*} properties,
 * snowflake and formatted IDs through the client, the {@code leaf} health indicator and Micrometer
 * meters of the generators.
 */
package io.leaf.spring.boot;
