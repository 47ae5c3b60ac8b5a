package io.leaf.spring.boot;

import io.leaf.client.LeafClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A {@link LeafClient} from {@code leaf.client.*} (owning its channel, closed with the context) and
 * the {@link LeafIdGenerators} (closed first), {@link LeafSnowflakeIds} and {@link
 * LeafFormattedIds} on it. Each bean backs off when the application defines its own.
 */
@AutoConfiguration
@ConditionalOnClass(LeafClient.class)
@EnableConfigurationProperties(LeafClientProperties.class)
public class LeafClientAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public LeafClient leafClient(LeafClientProperties properties) {
    return LeafClients.create(properties);
  }

  /** Snowflake IDs through the client: one RPC per call, no cache (they are time-ordered). */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(LeafClient.class)
  public LeafSnowflakeIds leafSnowflakeIds(LeafClient leafClient) {
    return LeafSnowflakeIds.of(leafClient::nextSnowflakeId, leafClient::nextSnowflakeIds);
  }

  /** Formatted numbers through the client: one RPC per call, no cache (periods end). */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(LeafClient.class)
  public LeafFormattedIds leafFormattedIds(LeafClient leafClient) {
    return LeafFormattedIds.of(leafClient);
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @ConditionalOnBean(LeafClient.class)
  public LeafIdGenerators leafIdGenerators(LeafClient leafClient, LeafClientProperties properties) {
    return new LeafIdGenerators(leafClient, properties);
  }
}
