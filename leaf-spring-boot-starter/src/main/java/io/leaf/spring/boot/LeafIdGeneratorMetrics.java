package io.leaf.spring.boot;

import io.leaf.client.CachedIdGenerator;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;

/**
 * Meters of every generator in {@link LeafIdGenerators}, tagged {@code biz_tag}, including
 * generators built after binding: {@value #SERVED}, {@value #WAITS}, {@value #REFILLS}, {@value
 * #REFILL_FAILURES} (counters) and {@value #LEFT} (a gauge).
 *
 * <p>Meters read the generators' counters when scraped; the ID path pays nothing for them.
 */
public class LeafIdGeneratorMetrics implements MeterBinder {

  static final String SERVED = "leaf.client.ids.served";
  static final String WAITS = "leaf.client.waits";
  static final String REFILLS = "leaf.client.refills";
  static final String REFILL_FAILURES = "leaf.client.refill.failures";
  static final String LEFT = "leaf.client.ids.left";

  private final LeafIdGenerators generators;

  public LeafIdGeneratorMetrics(LeafIdGenerators generators) {
    this.generators = Objects.requireNonNull(generators, "generators");
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    generators.forEachAndEveryNew((tag, g) -> register(registry, tag, g));
  }

  private static void register(MeterRegistry registry, String tag, CachedIdGenerator g) {
    Tags tags = Tags.of("biz_tag", tag);
    FunctionCounter.builder(SERVED, g, CachedIdGenerator::idsServed)
        .tags(tags)
        .description("IDs handed out from the client's cache")
        .register(registry);
    FunctionCounter.builder(WAITS, g, CachedIdGenerator::waits)
        .tags(tags)
        .description("calls that found every reserved ID used up and waited")
        .register(registry);
    FunctionCounter.builder(REFILLS, g, CachedIdGenerator::refills)
        .tags(tags)
        .description("reservations asked for")
        .register(registry);
    FunctionCounter.builder(REFILL_FAILURES, g, CachedIdGenerator::refillFailures)
        .tags(tags)
        .description("reservations that failed")
        .register(registry);
    Gauge.builder(LEFT, g, CachedIdGenerator::idsLeft)
        .tags(tags)
        .description("reserved IDs cached and not handed out yet")
        .register(registry);
  }
}
