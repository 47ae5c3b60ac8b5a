package io.leaf.server.http;

import io.leaf.server.snowflake.ClientLeases;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.snowflake.SnowflakeGenerator;
import io.leaf.server.snowflake.SnowflakeLayout;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the monitor page shows of this server's snowflake worker lease: label and value rows, in
 * order (worker ID, expiry, epoch and the like), read when the page asks. Must not block.
 */
@FunctionalInterface
public interface WorkerLeaseView {

  /** A server that issues no snowflake IDs holds no lease. */
  WorkerLeaseView NONE =
      () -> List.of(Map.entry("lease", "none: snowflake IDs are not served by this server"));

  List<Map.Entry<String, String>> rows();

  /**
   * The lease {@code snowflake} holds (worker ID, validity, lead over the wall clock, layout) and
   * the worker IDs clients hold.
   */
  static WorkerLeaseView of(Snowflake snowflake) {
    return () -> {
      SnowflakeGenerator g = snowflake.generator();
      SnowflakeLayout layout = snowflake.layout();
      List<Map.Entry<String, String>> rows = new ArrayList<>();
      rows.add(
          Map.entry("worker ID", g.leaseValid() ? Integer.toString(g.workerId()) : "none held"));
      rows.addAll(
          List.of(
              Map.entry("lease valid", Boolean.toString(g.leaseValid())),
              Map.entry("ID time ahead of wall clock", g.aheadOfWallMs() + " ms"),
              Map.entry(
                  "layout",
                  layout.timestampBits()
                      + "/"
                      + layout.workerIdBits()
                      + "/"
                      + layout.sequenceBits()
                      + " bits, runs out in "
                      + layout.endYear())));
      List<ClientLeases.Listed> clients = snowflake.clientLeases().held();
      rows.add(
          Map.entry(
              "client-held worker IDs",
              clients.size() + " of at most " + snowflake.clientLeases().max()));
      for (ClientLeases.Listed c : clients) {
        rows.add(
            Map.entry(
                "client worker " + c.workerId(),
                "lease ends " + Instant.ofEpochMilli(c.expiresMs()) + " (database clock)"));
      }
      return rows;
    };
  }
}
