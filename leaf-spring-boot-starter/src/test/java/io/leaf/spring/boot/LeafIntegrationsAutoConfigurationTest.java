package io.leaf.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leaf.client.LeafClient;
import io.leaf.hibernate.LeafIds;
import io.leaf.jackson.LeafIdModule;
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
    runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LeafClientAutoConfiguration.class,
            LeafIntegrationsAutoConfiguration.class))
        .withPropertyValues("leaf.client.target=" + server.target());
  }

  @AfterEach
  void tearDown() throws Exception {
    LeafIds.clear();
    server.close();
  }

  @Test
  void context_withHibernate_registersItsClientForTheGeneratorsUntilClosed() {
    runner.run(context -> {
      assertThat(context).hasSingleBean(
          LeafIntegrationsAutoConfiguration.LeafHibernateRegistration.class);
      assertThat(LeafIds.client()).as("the generators use the context's client")
          .isSameAs(context.getBean(LeafClient.class));
    });
    assertThatThrownBy(LeafIds::client).as("cleared when the context closes")
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no LeafClient");
  }

  @Test
  void context_withoutHibernate_registersNothing() {
    runner.withClassLoader(new FilteredClassLoader("org.hibernate")).run(context -> {
      assertThat(context).doesNotHaveBean(
          LeafIntegrationsAutoConfiguration.LeafHibernateRegistration.class);
      assertThatThrownBy(LeafIds::client).isInstanceOf(IllegalStateException.class);
    });
  }

  @Test
  void context_withLeafJackson_providesTheModuleUnlessTheAppHasOne() {
    runner.run(context -> assertThat(context).hasSingleBean(LeafIdModule.class));
    LeafIdModule own = new LeafIdModule();
    runner.withBean("ownModule", LeafIdModule.class, () -> own)
        .run(context -> assertThat(context.getBean(LeafIdModule.class)).isSameAs(own));
    runner.withClassLoader(new FilteredClassLoader(LeafIdModule.class))
        .run(context -> assertThat(context).doesNotHaveBean(LeafIdModule.class));
  }
}
