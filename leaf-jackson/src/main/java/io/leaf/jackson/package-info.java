/**
 * Leaf IDs in JSON for JavaScript callers: a JavaScript number holds integers exactly only up to
 * 2<sup>53</sup> − 1, and Leaf IDs (snowflake IDs, segment IDs of a region's share) pass it.
 *
 * <p>Two ways in, following cosid-jackson's annotation: {@link io.leaf.jackson.LeafIdJson} on a
 * {@code long}/{@code Long} property, or {@link io.leaf.jackson.LeafIdModule} registered on the
 * mapper for every {@code long}/{@code Long} (the Spring Boot starter registers it when this module
 * is on the classpath). Either writes values within the safe range as numbers and those past it as
 * strings, and reads both.
 */
package io.leaf.jackson;
