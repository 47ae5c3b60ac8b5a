package io.leaf.spring.boot;

import io.leaf.client.LeafClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code leaf} health indicator ({@link LeafHealthIndicator}) when Spring Boot's health support
 * is present and {@code management.health.leaf.enabled} is not false.
 */
@AutoConfiguration(after = LeafClientAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(LeafClient.class)
@ConditionalOnEnabledHealthIndicator("leaf")
public class LeafHealthAutoConfiguration {

  /** Named so that the indicator's name is {@code leaf}. */
  @Bean
  @ConditionalOnMissingBean(name = "leafHealthIndicator")
  public LeafHealthIndicator leafHealthIndicator(
      LeafClient leafClient, LeafClientProperties properties) {
    return new LeafHealthIndicator(leafClient, properties.getHealthTimeout());
  }
}
