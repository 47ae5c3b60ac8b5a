package io.leaf.server.region;

import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.TagPage;
import io.leaf.server.store.TagRecord;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * {@link RegionStore} in memory, beside a {@link SegmentStore} whose rows it reports; for tests.
 */
public final class MemoryRegionStore implements RegionStore {

  private final SegmentStore tags;
  private final AtomicReference<StoredRegion> row = new AtomicReference<>();

  /**
   * @param tags the rows {@link #highestTag} looks through
   */
  public MemoryRegionStore(SegmentStore tags) {
    this.tags = tags;
  }

  @Override
  public Optional<StoredRegion> read() {
    return Optional.ofNullable(row.get());
  }

  @Override
  public synchronized StoredRegion claim(
      StoredRegion wanted, Consumer<Optional<HighestTag>> approve) {
    if (row.get() == null) {
      approve.accept(highestTag());
      row.compareAndSet(null, wanted);
    }
    return row.get();
  }

  /** Deletes the row, as an operator's DELETE would. */
  public void delete() {
    row.set(null);
  }

  private Optional<HighestTag> highestTag() {
    TagRecord highest = null;
    String after = null;
    TagPage page;
    do {
      page = tags.listTags(after, 1000);
      for (TagRecord t : page.tags()) {
        if (highest == null || t.maxId() > highest.maxId()) {
          highest = t;
        }
        after = t.bizTag();
      }
    } while (page.hasMore());
    return Optional.ofNullable(highest).map(t -> new HighestTag(t.bizTag(), t.maxId()));
  }
}
