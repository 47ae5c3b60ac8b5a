package io.leaf.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.leaf.client.FailedPreconditionException;
import io.leaf.client.FormattedIdParts;
import io.leaf.client.LeafClient;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The LeafFormattedIds bean: formatted numbers through the configured client. */
class LeafFormattedIdsTest {

  private TestLeafServer server;
  private ApplicationContextRunner runner;

  @BeforeEach
  void setUp() throws Exception {
    server = new TestLeafServer();
    runner =
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeafClientAutoConfiguration.class))
            .withPropertyValues(
                "leaf.client.target=" + server.target(),
                "leaf.client.token=app-token",
                "leaf.client.max-attempts=1");
  }

  @AfterEach
  void tearDown() throws Exception {
    server.close();
  }

  @Test
  void formattedIds_nextBatchAndParse_throughTheClientWithItsToken() {
    runner.run(
        context -> {
          LeafFormattedIds ids = context.getBean(LeafFormattedIds.class);
          assertThat(ids.next("orders")).isEqualTo("F-1");
          assertThat(ids.next("orders", 3))
              .as("one stream of three")
              .containsExactly("F-2", "F-3", "F-4");
          assertThat(ids.parse("orders", "F-3"))
              .isEqualTo(new FormattedIdParts("", OptionalLong.of(3), true));
          assertThat(server.authorizations())
              .as("the client's token on each call")
              .hasSize(3)
              .allMatch("Bearer app-token"::equals);
        });
  }

  @Test
  void formattedIds_tagWithoutFormat_typedException() {
    server.fail(Status.FAILED_PRECONDITION.withDescription("biz_tag orders has no format"));
    runner.run(
        context ->
            assertThatThrownBy(() -> context.getBean(LeafFormattedIds.class).next("orders"))
                .isInstanceOf(FailedPreconditionException.class)
                .hasMessageContaining("orders has no format"));
  }

  @Test
  void formattedIds_userBean_kept() {
    LeafFormattedIds mine =
        new LeafFormattedIds() {
          @Override
          public String next(String bizTag) {
            return "mine";
          }

          @Override
          public List<String> next(String bizTag, int count) {
            return List.of();
          }

          @Override
          public FormattedIdParts parse(String bizTag, String value) {
            return null;
          }
        };
    runner
        .withBean(LeafFormattedIds.class, () -> mine)
        .run(
            context -> {
              assertThat(context).hasSingleBean(LeafFormattedIds.class);
              assertThat(context.getBean(LeafFormattedIds.class)).isSameAs(mine);
              assertThat(context).hasSingleBean(LeafClient.class);
            });
  }
}
