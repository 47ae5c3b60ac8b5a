package io.leaf.server.wiring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.grpc.inprocess.InProcessServerBuilder;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.formats.MemoryFormatStore;
import io.leaf.server.ledger.LedgerSettings;
import io.leaf.server.ledger.MemoryLedger;
import io.leaf.server.snowflake.MemoryWorkerLeaseStore;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.wiring.LeafServerBuilder.Stores;
import java.time.InstantSource;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** A builder given options of both paths, or only some ready parts, refuses before opening. */
class LeafServerBuilderTest {

  private final ServerConfig config = ServerConfig.parse(new String[0], env -> null);
  private final Stores stores =
      new Stores(
          new MemorySegmentStore(),
          new MemoryLedger(InstantSource.system(), LedgerSettings.OFF),
          () -> {},
          new Stores.Formats(new MemoryFormatStore(), InstantSource.system()));

  @Test
  void build_someReadyPartsOnly_refused() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                LeafServerBuilder.forConfig(config)
                    .transport(InProcessServerBuilder.forName("some-parts"))
                    .stores(stores)
                    .build());
    assertEquals("stores, engine and snowflake are given together", e.getMessage());
  }

  @Test
  void build_readyPartsOptionsWithoutReadyParts_refused() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> LeafServerBuilder.forConfig(config).resources(() -> {}).build());
    assertEquals(
        "metrics, tokenAccess and resources are for a server over ready parts", e.getMessage());
  }

  @Test
  void build_readyPartsWithoutTransportOrWithDecorator_refused() {
    try (Snowflake snowflake =
        LeafServerBuilder.productionSnowflake(
            config, new MemoryWorkerLeaseStore(InstantSource.system()), false)) {
      LeafServerBuilder ready =
          LeafServerBuilder.forConfig(config)
              .stores(stores)
              .engine(listeners -> null)
              .snowflake(snowflake);
      assertEquals(
          "a server over ready parts needs a transport",
          assertThrows(IllegalStateException.class, ready::build).getMessage());
      ready.transport(InProcessServerBuilder.forName("decorated"));
      ready.decorateStore(UnaryOperator.identity());
      assertEquals(
          "decorateStore is for the database the production path opens",
          assertThrows(IllegalStateException.class, ready::build).getMessage());
    }
  }
}
