package io.leaf.server.wiring;

import io.leaf.server.formats.FormatStore;
import io.leaf.server.ledger.Ledger;
import io.leaf.server.ordering.OrderingSource;
import io.leaf.server.region.Region;
import io.leaf.server.store.SegmentStore;
import java.time.InstantSource;

/**
 * What a server reads and writes, handed to {@link LeafServerBuilder#stores}: the segments it
 * serves (a region's and any decorator's), the ledger over the same rows, the schema's creation
 * (retried until it succeeds), the formats and the tags' orderings.
 */
public record Stores(
    SegmentStore segments,
    Ledger ledger,
    Runnable schemaInit,
    Stores.Formats formats,
    OrderingSource orderings) {

  /** Orderings in memory: this server alone. */
  public Stores(SegmentStore segments, Ledger ledger, Runnable schemaInit, Formats formats) {
    this(segments, ledger, schemaInit, formats, OrderingSource.inMemory());
  }

  /**
   * Where tags' formats are kept, the wall clock that picks each formatted number's period, and the
   * region whose rule turns a period row's IDs into sequences.
   */
  public record Formats(FormatStore store, InstantSource clock, Region region) {
    /** Without regions. */
    public Formats(FormatStore store, InstantSource clock) {
      this(store, clock, Region.NONE);
    }
  }
}
