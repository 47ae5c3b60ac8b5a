package io.leaf.server.region;

import io.leaf.server.store.ForwardingSegmentStore;
import io.leaf.server.store.IdOverflowException;
import io.leaf.server.store.SegmentRange;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.store.TagPage;
import io.leaf.server.store.TagRecord;
import java.util.Optional;

/**
 * The {@link SegmentStore} a server of a {@link Region} serves from: the database's local values
 * shifted into the region's share, and nothing issued before {@link #verify} has found this
 * server's region to be its database's.
 *
 * <p>So every way an ID leaves (NextId, NextIdBatch, ReserveIds' own write, InitCache, formatted
 * numbers' rows) and every {@code max_id} shown (GetTag, ListTags, CreateTag) is an ID of the
 * share. A server that could not check at start (the database was down) checks on its first call
 * that reaches the database.
 *
 * <p>A segment whose end would pass the share's last integer fails with {@link IdOverflowException}
 * (OUT_OF_RANGE) naming the region; nothing of it is issued. Cost: one volatile read and two
 * additions per segment, nothing per ID. Thread-safe.
 */
public final class RegionalSegmentStore extends ForwardingSegmentStore {

  private final Region region;
  private final RegionStore regions;
  private final Object verifyLock = new Object();
  private volatile boolean verified;

  /**
   * @param local the database's store (local values)
   * @param regions where the database records its region
   */
  public RegionalSegmentStore(SegmentStore local, Region region, RegionStore regions) {
    super(local);
    this.region = region;
    this.regions = regions;
  }

  public Region region() {
    return region;
  }

  /**
   * What every take of {@code region}'s server checks in its own transaction ({@link RegionFence}):
   * the {@code leaf_region} row (or its absence) and the share's end.
   */
  public static RegionFence fence(Region region) {
    if (region.isNone()) {
      return RegionFence.withoutRegion();
    }
    return RegionFence.forRegion(
        new StoredRegion(RegionCheck.RULE, region.region(), region.regions()),
        region.base(),
        region.maxLocalMaxId());
  }

  /**
   * Checks this server's region against the database's once (recording it in a fresh database);
   * later calls return at once.
   *
   * @throws RegionMismatchException the database is set up for another region
   */
  public void verify() {
    if (verified) {
      return;
    }
    synchronized (verifyLock) {
      if (!verified) {
        RegionCheck.verify(region, regions);
        verified = true;
      }
    }
  }

  /**
   * {@link #verify()}, then reads the database's region row again and compares it with this
   * server's: for acts outside a take's transaction (a worker lease's claim or renewal).
   *
   * @throws RegionMismatchException the check at start failed, or the row changed since
   */
  public void recheck() {
    verify();
    RegionCheck.recheck(region, regions);
  }

  /**
   * Pings the database and, once the start check passed, reads the region row again: the health
   * monitor's periodic check turns readiness NOT_SERVING when another server claimed the database
   * since (takes are refused by the {@link RegionFence} either way).
   */
  @Override
  public void ping() {
    delegate().ping();
    if (verified) {
      RegionCheck.recheck(region, regions);
    }
  }

  @Override
  public TagRecord createTag(String bizTag, long maxId, int step, String description) {
    verify();
    long local;
    try {
      local = region.toLocal(maxId);
    } catch (IllegalArgumentException e) {
      throw new MaxIdOutsideRegionException(e.getMessage());
    }
    return shown(delegate().createTag(bizTag, local, step, description));
  }

  @Override
  public Optional<TagRecord> getTag(String bizTag) {
    verify();
    return delegate().getTag(bizTag).map(this::shown);
  }

  @Override
  public TagRecord updateStep(String bizTag, int step) {
    verify();
    return shown(delegate().updateStep(bizTag, step));
  }

  @Override
  public TagPage listTags(String afterBizTag, int limit) {
    verify();
    TagPage page = delegate().listTags(afterBizTag, limit);
    return region.isNone()
        ? page
        : new TagPage(page.tags().stream().map(this::shown).toList(), page.hasMore());
  }

  @Override
  public SegmentRange nextSegment(String bizTag, int step) {
    verify();
    return shown(bizTag, delegate().nextSegment(bizTag, step));
  }

  @Override
  public SegmentRange reserveRange(String bizTag, int count) {
    verify();
    return shown(bizTag, delegate().reserveRange(bizTag, count));
  }

  private SegmentRange shown(String bizTag, SegmentRange local) {
    if (region.isNone()) {
      return local;
    }
    if (local.end() > region.maxLocalMaxId()) {
      throw new IdOverflowException(
          "biz_tag "
              + bizTag
              + " is exhausted in region "
              + region
              + ": max_id "
              + region.toId(local.start())
              + " + step "
              + local.step()
              + " would pass the region's last ID "
              + region.toId(region.maxLocalMaxId() - 1));
    }
    long base = region.base();
    return new SegmentRange(
        base + local.start(), base + local.end(), local.step(), local.tableStep());
  }

  private TagRecord shown(TagRecord r) {
    return region.isNone()
        ? r
        : new TagRecord(
            r.bizTag(), region.toId(r.maxId()), r.step(), r.description(), r.updateTime());
  }
}
