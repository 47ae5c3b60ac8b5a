package io.leaf.spring.boot;

import io.leaf.hibernate.LeafIds;
import io.leaf.jackson.LeafIdModule;
import io.leaf.mybatis.LeafIdentifierGenerator;
import io.leaf.shardingsphere.LeafKeyGenerators;
import java.util.Map;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Leaf integrations whose library is on the classpath, drawing from this context's client and
 * generators.
 *
 * <p>The Hibernate generators ({@code leaf-hibernate}), MyBatis-Plus's {@code ASSIGN_ID} ({@code
 * leaf-mybatis}) and the {@code LEAF} ShardingSphere key generators ({@code leaf-shardingsphere})
 * draw their IDs so, and Boot's JSON mapper writes IDs past JavaScript's safe integers as strings
 * ({@code leaf-jackson}).
 */
@AutoConfiguration(after = LeafClientAutoConfiguration.class)
public class LeafIntegrationsAutoConfiguration {

  /** Registers the context's client and generators in {@link LeafIds}; clears it at close. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {"io.leaf.hibernate.LeafIds", "org.hibernate.generator.BeforeExecutionGenerator"})
  @ConditionalOnBean(LeafIdGenerators.class)
  static class Hibernate {

    @Bean
    @ConditionalOnMissingBean
    LeafHibernateRegistration leafHibernateRegistration(
        io.leaf.client.LeafClient leafClient, LeafIdGenerators leafIdGenerators) {
      LeafIds.register(leafClient, leafIdGenerators::get);
      return new LeafHibernateRegistration();
    }
  }

  /** {@link LeafIdentifierGenerator} as a bean: MyBatis-Plus's starter takes it for ASSIGN_ID. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {
        "io.leaf.mybatis.LeafIdentifierGenerator",
        "com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator"
      })
  @ConditionalOnBean(LeafIdGenerators.class)
  static class MyBatisPlus {

    @Bean
    @ConditionalOnMissingBean
    LeafIdentifierGenerator leafIdentifierGenerator(LeafIdGenerators leafIdGenerators) {
      return new LeafIdentifierGenerator(leafIdGenerators::get, Map.of());
    }
  }

  /** Registers the context's generators for the {@code LEAF} key generators; clears it at close. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {
        "io.leaf.shardingsphere.LeafKeyGenerators",
        "org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm"
      })
  @ConditionalOnBean(LeafIdGenerators.class)
  static class ShardingSphere {

    @Bean
    @ConditionalOnMissingBean
    LeafShardingSphereRegistration leafShardingSphereRegistration(
        LeafIdGenerators leafIdGenerators) {
      LeafKeyGenerators.register(leafIdGenerators::get);
      return new LeafShardingSphereRegistration();
    }
  }

  /** {@link LeafIdModule} as a bean: Spring Boot adds every JacksonModule bean to its mapper. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {"io.leaf.jackson.LeafIdModule", "tools.jackson.databind.JacksonModule"})
  static class Jackson {

    @Bean
    @ConditionalOnMissingBean
    LeafIdModule leafIdModule() {
      return new LeafIdModule();
    }
  }

  /** The registration in {@link LeafKeyGenerators} of the context's generators, undone at close. */
  public static final class LeafShardingSphereRegistration implements DisposableBean {

    @Override
    public void destroy() {
      LeafKeyGenerators.clear();
    }
  }

  /** The registration in {@link LeafIds} of the context's client, undone at close. */
  public static final class LeafHibernateRegistration implements DisposableBean {

    @Override
    public void destroy() {
      LeafIds.clear();
    }
  }
}
