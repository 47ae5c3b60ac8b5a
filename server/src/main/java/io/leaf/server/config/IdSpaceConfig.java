package io.leaf.server.config;

import io.leaf.server.formats.FormatKey;
import io.leaf.server.region.Region;
import io.leaf.server.snowflake.SnowflakeConfig;
import java.util.Optional;

/**
 * The IDs this server issues beyond plain segments: the snowflake layout, the key of formatted
 * numbers, the share of the ID space it owns, and how a tag's IDs are ordered across servers.
 *
 * @param snowflake the snowflake layout and worker lease
 * @param formatKey the key of opaque formatted numbers ({@code --format-key-file}); empty: none
 * @param region the share of the ID space this server issues ({@code --region}); {@link
 *     Region#NONE}: all of it
 * @param ordering where this server is reached by others and how long a tag's owner lease lives
 */
public record IdSpaceConfig(
    SnowflakeConfig snowflake,
    Optional<FormatKey> formatKey,
    Region region,
    OrderingConfig ordering) {}
