package io.leaf.server.formats;

/**
 * One {@code leaf_format} row: the format a tag had from {@code version} on, as stored.
 *
 * @param version 1 for the tag's first format; the highest version is the current one
 * @param reset NEVER, DAILY, MONTHLY or YEARLY
 * @param timeZone an IANA name or an offset, as given when set ({@code UTC} by default)
 * @param keyFingerprint the opaque key's fingerprint; {@code ""} for a plain format
 * @param updateTime epoch milliseconds when this version was stored
 */
public record StoredFormat(
    String bizTag,
    int version,
    String pattern,
    String reset,
    String timeZone,
    String keyFingerprint,
    long updateTime) {}
