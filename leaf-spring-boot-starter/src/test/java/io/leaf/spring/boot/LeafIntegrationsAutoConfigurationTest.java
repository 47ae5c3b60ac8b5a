package io.leaf.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.baomidou.mybatisplus.annotation.TableName;
import io.leaf.client.LeafClient;
import io.leaf.hibernate.LeafIds;
import io.leaf.jackson.LeafIdModule;
import io.leaf.mybatis.LeafIdentifierGenerator;
import io.leaf.shardingsphere.LeafKeyGenerateAlgorithm;
import java.util.Properties;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The Hibernate registration and the Jackson module, present only with their libraries. */
class LeafIntegrationsAutoConfigurationTest {

  private TestLeafServer server;
  private ApplicationContextRunner runner;

  @BeforeEach
  void setUp() throws Exception {
    LeafIds.clear();
    server = new TestLeafServer();
    runner =
        new ApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(
                    LeafClientAutoConfiguration.class, LeafIntegrationsAutoConfiguration.class))
            .withPropertyValues("leaf.client.target=" + server.target());
  }

  @AfterEach
  void tearDown() throws Exception {
    LeafIds.clear();
    server.close();
  }

  @Test
  void context_withHibernate_registersItsClientForTheGeneratorsUntilClosed() {
    runner.run(
        context -> {
          assertThat(context)
              .hasSingleBean(LeafIntegrationsAutoConfiguration.LeafHibernateRegistration.class);
          assertThat(LeafIds.client())
              .as("the generators use the context's client")
              .isSameAs(context.getBean(LeafClient.class));
        });
    assertThatThrownBy(LeafIds::client)
        .as("cleared when the context closes")
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no LeafClient");
  }

  @Test
  void context_withoutHibernate_registersNothing() {
    runner
        .withClassLoader(new FilteredClassLoader("org.hibernate"))
        .run(
            context -> {
              assertThat(context)
                  .doesNotHaveBean(
                      LeafIntegrationsAutoConfiguration.LeafHibernateRegistration.class);
              assertThatThrownBy(LeafIds::client).isInstanceOf(IllegalStateException.class);
            });
  }

  @Test
  void context_withMyBatisPlus_providesTheGeneratorOnTheContextsGenerators() {
    runner.run(
        context -> {
          LeafIdentifierGenerator generator = context.getBean(LeafIdentifierGenerator.class);
          assertThat(generator.nextId(new Orders())).as("the test server's first ID").isEqualTo(1L);
          assertThat(context.getBean(LeafIdGenerators.class).tags())
              .as("one of the context's")
              .contains("orders");
        });
    runner
        .withClassLoader(new FilteredClassLoader("com.baomidou"))
        .run(context -> assertThat(context).doesNotHaveBean(LeafIdentifierGenerator.class));
  }

  @Test
  void context_withShardingSphere_registersTheGeneratorsUntilClosed() {
    runner.run(
        context -> {
          assertThat(context)
              .hasSingleBean(
                  LeafIntegrationsAutoConfiguration.LeafShardingSphereRegistration.class);
          LeafKeyGenerateAlgorithm algorithm = new LeafKeyGenerateAlgorithm();
          algorithm.init(new Properties());
          assertThat(algorithm.generateKeys(new AlgorithmSQLContext("db", "s", "orders", "id"), 2))
              .as("keys from the context's generator of the table's tag")
              .containsExactly(1L, 2L);
        });
    LeafKeyGenerateAlgorithm after = new LeafKeyGenerateAlgorithm();
    after.init(new Properties());
    assertThatThrownBy(() -> after.generateKeys(new AlgorithmSQLContext("db", "s", "t", "id"), 1))
        .as("cleared when the context closes")
        .isInstanceOf(IllegalStateException.class);
  }

  /** A MyBatis-Plus entity of table orders. */
  @TableName("orders")
  static class Orders {}

  @Test
  void context_withLeafJackson_providesTheModuleUnlessTheAppHasOne() {
    runner.run(context -> assertThat(context).hasSingleBean(LeafIdModule.class));
    LeafIdModule own = new LeafIdModule();
    runner
        .withBean("ownModule", LeafIdModule.class, () -> own)
        .run(context -> assertThat(context.getBean(LeafIdModule.class)).isSameAs(own));
    runner
        .withClassLoader(new FilteredClassLoader(LeafIdModule.class))
        .run(context -> assertThat(context).doesNotHaveBean(LeafIdModule.class));
  }
}
