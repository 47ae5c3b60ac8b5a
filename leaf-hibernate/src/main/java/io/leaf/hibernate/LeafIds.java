package io.leaf.hibernate;

import io.leaf.client.CachedIdGenerator;
import io.leaf.client.LeafClient;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Where the Hibernate generators find Leaf: one {@link LeafClient} registered per process (the
 * Spring Boot starter registers its own), and a {@link CachedIdGenerator} per tag, built on first
 * use or supplied by the registrant.
 */
public final class LeafIds {

  /* A static registry rather than a Hibernate service: Hibernate builds generators through
   * reflection with no hook to pass an object, and a Spring context or a main method both know
   * their client before the first insert. A re-registration replaces the client; generators
   * this class built for the old one are closed (their cached IDs lost: gaps, never repeats). */

  private static volatile Registration current;

  private LeafIds() {}

  /** Registers {@code client}; each tag's generator is built on first use with the defaults. */
  public static void register(LeafClient client) {
    Objects.requireNonNull(client, "client");
    Map<String, CachedIdGenerator> built = new ConcurrentHashMap<>();
    install(
        new Registration(
            client,
            tag -> built.computeIfAbsent(tag, t -> CachedIdGenerator.builder(client, t).build()),
            built));
  }

  /**
   * Registers {@code client} with the caller's generators ({@code generators.apply(tag)}, called on
   * each insert: it should return the same generator for a tag, as the starter's does).
   */
  public static void register(LeafClient client, Function<String, CachedIdGenerator> generators) {
    install(
        new Registration(
            Objects.requireNonNull(client, "client"),
            Objects.requireNonNull(generators, "generators"),
            Map.of()));
  }

  /** Forgets the registration, closing the generators built here (not the client). */
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

  /** The registered client; throws saying how to register one when there is none. */
  public static LeafClient client() {
    return registration().client;
  }

  /** The next ID of {@code bizTag} from its cached generator. */
  static long nextId(String bizTag) {
    return registration().generators.apply(bizTag).next();
  }

  private static Registration registration() {
    Registration r = current;
    if (r == null) {
      throw new IllegalStateException(
          "no LeafClient registered for the Leaf ID generators: call "
              + "io.leaf.hibernate.LeafIds.register(client) at start, or use the Leaf Spring Boot "
              + "starter");
    }
    return r;
  }

  private record Registration(
      LeafClient client,
      Function<String, CachedIdGenerator> generators,
      Map<String, CachedIdGenerator> built) {}
}
