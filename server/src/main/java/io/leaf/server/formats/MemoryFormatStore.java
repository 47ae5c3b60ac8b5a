package io.leaf.server.formats;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link FormatStore} in memory, for tests and benchmarks: the same version rule as the table (a
 * version is stored once), nothing persisted. Thread-safe.
 */
public final class MemoryFormatStore implements FormatStore {

  private final Map<String, List<StoredFormat>> formats = new ConcurrentHashMap<>();

  @Override
  public List<StoredFormat> history(String bizTag) {
    List<StoredFormat> h = formats.get(bizTag);
    if (h == null) {
      return List.of();
    }
    synchronized (h) {
      return List.copyOf(h);
    }
  }

  @Override
  public Map<String, StoredFormat> current(Collection<String> bizTags) {
    Map<String, StoredFormat> out = new HashMap<>();
    for (String tag : bizTags) {
      List<StoredFormat> h = history(tag);
      if (!h.isEmpty()) {
        out.put(tag, h.get(h.size() - 1));
      }
    }
    return out;
  }

  @Override
  public StoredFormat add(StoredFormat format) {
    List<StoredFormat> h = formats.computeIfAbsent(format.bizTag(), t -> new ArrayList<>());
    synchronized (h) {
      if (format.version() != h.size() + 1) {
        throw new FormatVersionTakenException(format.bizTag(), format.version());
      }
      h.add(format);
      return format;
    }
  }

  @Override
  public void createSchemaIfMissing() {}
}
