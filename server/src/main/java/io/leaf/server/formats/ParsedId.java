package io.leaf.server.formats;

import java.util.OptionalLong;

/**
 * What {@link FormattedIds#parse} reads from a value: its period key ({@code ""} for a format that
 * never resets), its sequence (empty for an opaque value that was not to be revealed), and whether
 * its check characters are right ({@code true} for a format without a check).
 */
public record ParsedId(String periodKey, OptionalLong sequence, boolean checkValid) {}
