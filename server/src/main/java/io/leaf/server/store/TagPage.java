package io.leaf.server.store;

import java.util.List;

/**
 * One page of tags ordered by {@code biz_tag}; {@code hasMore} tells whether a next page exists.
 */
public record TagPage(List<TagRecord> tags, boolean hasMore) {}
