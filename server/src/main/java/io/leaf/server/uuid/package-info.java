/**
 * Version 7 UUIDs (RFC 9562) and their ULID form, made from the server's snowflake IDs: a UUID
 * carries a snowflake ID's timestamp, sequence (as the counter) and worker ID, plus random bits.
 *
 * <p>{@link io.leaf.server.uuid.UuidLayout} places the bits, {@link io.leaf.server.uuid.Ulid}
 * writes them in Crockford base32, {@link io.leaf.server.uuid.Uuids} issues them through {@link
 * io.leaf.server.snowflake.Snowflake}, whose lease and clock rules they therefore share.
 */
package io.leaf.server.uuid;
