package io.leaf.server.formats;

/**
 * One {@code leaf_format} row: the format a tag had from {@code version} on, as stored.
 *
 * @param bizTag the tag this format belongs to
 * @param version 1 for the tag's first format; the highest version is the current one
 * @param definition the pattern, reset and time zone, as stored
 * @param keyFingerprint the opaque key's fingerprint; {@code ""} for a plain format
 * @param updateTime epoch milliseconds when this version was stored
 */
public record StoredFormat(
    String bizTag,
    int version,
    FormatDefinition definition,
    String keyFingerprint,
    long updateTime) {

  /** The pattern's source text. */
  public String pattern() {
    return definition.pattern();
  }

  /** NEVER, DAILY, MONTHLY or YEARLY. */
  public String reset() {
    return definition.reset();
  }

  /** An IANA name or an offset, as given when set. */
  public String timeZone() {
    return definition.timeZone();
  }

  /** The same text as before the definition was split out, one component per column. */
  @Override
  public String toString() {
    return "StoredFormat[bizTag="
        + bizTag
        + ", version="
        + version
        + ", pattern="
        + pattern()
        + ", reset="
        + reset()
        + ", timeZone="
        + timeZone()
        + ", keyFingerprint="
        + keyFingerprint
        + ", updateTime="
        + updateTime
        + "]";
  }
}
