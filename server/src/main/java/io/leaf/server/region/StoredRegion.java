package io.leaf.server.region;

/**
 * The row of {@code leaf_region}: which rule splits the ID space and which share this database
 * issues.
 *
 * @param rule the name of the rule ({@code high-bits})
 * @param region r of {@code --region r/n}
 * @param regions n
 */
public record StoredRegion(String rule, int region, int regions) {}
