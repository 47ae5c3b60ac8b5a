package io.leaf.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * leaf.client.call-owners: once the server given names a STRICT tag's owner, the starter's client
 * calls the owner directly when the property is true, and never by default.
 */
class LeafClientOwnersTest {

  /** Where the owner's numbers start, so that each number tells which server issued it. */
  private static final long OWNER_FIRST = 1_000_000;

  private TestLeafServer owner;
  private TestLeafServer given;
  private ApplicationContextRunner runner;

  @BeforeEach
  void setUp() throws Exception {
    owner = new TestLeafServer().startAt(OWNER_FIRST);
    given = new TestLeafServer().namingOwner(owner.target());
    runner =
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeafClientAutoConfiguration.class))
            .withPropertyValues("leaf.client.target=" + given.target());
  }

  @AfterEach
  void tearDown() throws Exception {
    given.close();
    owner.close();
  }

  @Test
  void callOwnersTrue_ownerNamed_laterCallsGoToTheOwner() {
    runner
        .withPropertyValues("leaf.client.call-owners=true")
        .run(
            context -> {
              LeafFormattedIds formatted = context.getBean(LeafFormattedIds.class);
              assertThat(formatted.next("invoices"))
                  .as("the server given, naming the owner")
                  .isEqualTo("F-1");
              assertThat(formatted.next("invoices")).as("then the owner").isEqualTo("F-1000000");
              assertThat(formatted.next("invoices", 2))
                  .as("batches too")
                  .containsExactly("F-1000001", "F-1000002");
              assertThat(given.authorizations()).as("calls the server given received").hasSize(1);
            });
  }

  @Test
  void byDefault_ownerNamed_everyCallToTheServerGiven() {
    runner.run(
        context -> {
          LeafFormattedIds formatted = context.getBean(LeafFormattedIds.class);
          assertThat(formatted.next("invoices")).isEqualTo("F-1");
          assertThat(formatted.next("invoices")).as("the owner is not called").isEqualTo("F-2");
          assertThat(owner.authorizations()).as("calls the owner received").isEmpty();
        });
  }
}
