package io.leaf.spring.boot;

import io.leaf.client.CachedIdGenerator;
import io.leaf.client.LeafClient;
import io.leaf.spring.boot.LeafClientProperties.Generator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/**
 * The application's ID generators, one {@link CachedIdGenerator} per business tag, looked up with
 * {@link #get}; {@link #close()} closes every generator.
 *
 * <p>The tags under {@code leaf.client.generators} are built at start (their first reservation is
 * fetched at once), any other tag with the defaults when first asked for, up to {@code
 * leaf.client.max-generators} in all.
 *
 * <p>Thread-safe. {@link #get} of an existing generator is one concurrent-map read; keep the
 * generator rather than look it up for every ID.
 */
public class LeafIdGenerators implements AutoCloseable {

  private final LeafClient client;
  private final Map<String, Generator> settings;
  private final int maxGenerators;
  private final ConcurrentHashMap<String, CachedIdGenerator> generators = new ConcurrentHashMap<>();
  private final List<BiConsumer<String, CachedIdGenerator>> listeners =
      new CopyOnWriteArrayList<>();

  /** Guarded by this: creation and close are serialized, lookups are not. */
  private boolean closed;

  /**
   * Generators on {@code client} (which they do not close) with {@code settings} by tag, at most
   * {@code maxGenerators}; the configured ones are built now.
   */
  public LeafIdGenerators(LeafClient client, Map<String, Generator> settings, int maxGenerators) {
    this.client = Objects.requireNonNull(client, "client");
    this.settings = Map.copyOf(settings);
    this.maxGenerators = maxGenerators;
    if (settings.size() > maxGenerators) {
      throw new IllegalArgumentException(
          LeafClientProperties.PREFIX
              + ".max-generators ("
              + maxGenerators
              + ") is below the "
              + settings.size()
              + " configured generators");
    }
    try {
      settings.keySet().forEach(this::get);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Generators built from {@code properties}. */
  public LeafIdGenerators(LeafClient client, LeafClientProperties properties) {
    this(client, properties.getGenerators(), properties.getMaxGenerators());
  }

  /**
   * The generator of {@code bizTag}, built on first use.
   *
   * @throws IllegalArgumentException the tag is empty, longer than 128 characters or holds a
   *     control character
   * @throws IllegalStateException {@code leaf.client.max-generators} generators exist already, or
   *     this is closed
   */
  public CachedIdGenerator get(String bizTag) {
    CachedIdGenerator g = generators.get(Objects.requireNonNull(bizTag, "bizTag"));
    return g != null ? g : create(bizTag);
  }

  private synchronized CachedIdGenerator create(String bizTag) {
    if (closed) {
      throw new IllegalStateException("the Leaf ID generators are closed");
    }
    CachedIdGenerator existing = generators.get(bizTag);
    if (existing != null) {
      return existing;
    }
    if (!Tags.valid(bizTag)) {
      throw new IllegalArgumentException(
          "biz_tag must be 1 to "
              + Tags.MAX_LENGTH
              + " characters without control characters, got '"
              + bizTag
              + "'");
    }
    if (generators.size() >= maxGenerators) {
      throw new IllegalStateException(
          "no generator for biz_tag '"
              + bizTag
              + "': "
              + LeafClientProperties.PREFIX
              + ".max-generators ("
              + maxGenerators
              + ") generators exist already "
              + generators.keySet());
    }
    CachedIdGenerator g = build(bizTag, settings.getOrDefault(bizTag, new Generator()));
    generators.put(bizTag, g);
    listeners.forEach(l -> l.accept(bizTag, g));
    return g;
  }

  private CachedIdGenerator build(String bizTag, Generator s) {
    return CachedIdGenerator.builder(client, bizTag)
        .minBlockSize(s.getMinBlockSize())
        .maxBlockSize(s.getMaxBlockSize())
        .refillThreshold(s.getRefillThreshold())
        .targetRefillInterval(s.getTargetRefillInterval())
        .maxWait(s.getMaxWait())
        .build();
  }

  /** The tags that have a generator now. */
  public Set<String> tags() {
    return Set.copyOf(generators.keySet());
  }

  /**
   * Calls {@code action} for every generator now and for each one built later (e.g. to register its
   * meters), under the lock that serializes creation, so none is missed or seen twice.
   */
  public synchronized void forEachAndEveryNew(BiConsumer<String, CachedIdGenerator> action) {
    Objects.requireNonNull(action, "action");
    listeners.add(action);
    new LinkedHashMap<>(generators).forEach(action);
  }

  /** Closes every generator (dropping their cached IDs); later {@link #get} calls throw. */
  @Override
  public void close() {
    List<CachedIdGenerator> all;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      all = new ArrayList<>(generators.values());
      generators.clear();
    }
    all.forEach(CachedIdGenerator::close);
  }
}
