package io.leaf.shardingsphere;

import io.leaf.client.CachedIdGenerator;
import io.leaf.client.LeafClient;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The Leaf generators the {@code LEAF} key generators use when their properties name no {@code
 * target}: registered once per process (the Spring Boot starter registers its own).
 */
public final class LeafKeyGenerators {

  /* Static because ShardingSphere builds its algorithms through ServiceLoader, with only their
   * properties; a re-registration closes the generators built for the previous one (their cached
   * IDs lost: gaps, never repeats). */

  private static volatile Registration current;

  private LeafKeyGenerators() {}

  /** Registers {@code client}; each tag's generator is built on first use with the defaults. */
  public static void register(LeafClient client) {
    Objects.requireNonNull(client, "client");
    Map<String, CachedIdGenerator> built = new ConcurrentHashMap<>();
    install(
        new Registration(
            tag -> built.computeIfAbsent(tag, t -> CachedIdGenerator.builder(client, t).build()),
            built));
  }

  /** Registers the caller's generators, e.g. the starter's {@code LeafIdGenerators::get}. */
  public static void register(Function<String, CachedIdGenerator> generators) {
    install(new Registration(Objects.requireNonNull(generators, "generators"), Map.of()));
  }

  /** Forgets the registration, closing the generators built here. */
  public static void clear() {
    install(null);
  }

  private static synchronized void install(Registration next) {
    Registration previous = current;
    current = next;
    if (previous != null) {
      previous.built.values().forEach(CachedIdGenerator::close);
    }
  }

  /** The registered generator of {@code bizTag}; throws saying how to register when none is. */
  static CachedIdGenerator get(String bizTag) {
    Registration r = current;
    if (r == null) {
      throw new IllegalStateException(
          "the LEAF key generator has no target property and no "
              + "registered client: set props target (host:port), call "
              + "io.leaf.shardingsphere.LeafKeyGenerators.register(client), or use the Leaf Spring "
              + "Boot starter");
    }
    return r.generators.apply(bizTag);
  }

  private record Registration(
      Function<String, CachedIdGenerator> generators, Map<String, CachedIdGenerator> built) {}
}
