package io.leaf.spring.boot;

import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters of the ID generators ({@link LeafIdGeneratorMetrics}) when Micrometer is
 * present; Spring Boot binds them to its meter registries.
 */
@AutoConfiguration(after = LeafClientAutoConfiguration.class)
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean(LeafIdGenerators.class)
public class LeafMetricsAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public LeafIdGeneratorMetrics leafIdGeneratorMetrics(LeafIdGenerators leafIdGenerators) {
    return new LeafIdGeneratorMetrics(leafIdGenerators);
  }
}
