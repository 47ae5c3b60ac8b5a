package io.leaf.server.formats;

import io.leaf.server.store.SegmentStore;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Every format each tag has had (the {@code leaf_format} table), so the current one can be served
 * and a change checked against all earlier ones.
 *
 * <p>Implementations are thread-safe. Failures are the unchecked exceptions of this package, as for
 * {@link SegmentStore}.
 */
public interface FormatStore {

  /** The formats of {@code bizTag}, oldest first (version 1 first); empty when it has none. */
  List<StoredFormat> history(String bizTag);

  /** The current (newest) format of each of {@code bizTags} that has one, in one read. */
  Map<String, StoredFormat> current(Collection<String> bizTags);

  /**
   * Stores {@code format} as its tag's {@code version}, in one insert.
   *
   * @return the row as stored (with its update time)
   * @throws FormatVersionTakenException another caller stored that version first: read the history
   *     again and decide anew
   */
  StoredFormat add(StoredFormat format);

  /** Creates the table when missing; idempotent. */
  void createSchemaIfMissing();
}
