package io.leaf.server.wiring;

import io.leaf.server.LeafServer;
import io.leaf.server.config.HttpConfig;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.formats.FormattedIssuer;
import io.leaf.server.grpc.LeafGrpcService;
import io.leaf.server.http.HttpEndpoints;
import io.leaf.server.http.HttpRoutes;
import io.leaf.server.http.IdEndpoints;
import io.leaf.server.http.LedgerEndpoint;
import io.leaf.server.http.MonitorData;
import io.leaf.server.http.MonitorPage;
import io.leaf.server.http.SnowflakeIds;
import io.leaf.server.http.UuidEndpoint;
import io.leaf.server.http.WorkerLeaseView;
import io.leaf.server.metrics.Metrics;
import io.leaf.server.security.TokenAccess;
import io.leaf.server.snowflake.ClientLeases;
import io.leaf.server.snowflake.Snowflake;
import io.leaf.server.snowflake.SnowflakeGenerator;
import io.leaf.server.snowflake.SnowflakeLayout;
import io.leaf.server.uuid.Uuids;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Wires what {@code --http-port} serves from the server's parts: Meituan Leaf's ID routes, the
 * formatted-number route, the monitor page with its limits, and {@code /metrics}; part of the
 * composition root beside {@link LeafServerBuilder}.
 */
final class HttpWiring {

  private HttpWiring() {}

  /** What {@code --http-port} serves. */
  static HttpRoutes routes(
      ServerConfig config,
      LeafServer.Parts parts,
      FormattedIssuer issuer,
      Metrics metrics,
      TokenAccess access,
      LongSupplier httpConnections) {
    HttpRoutes routes = new HttpRoutes();
    if (metrics != null) {
      routes.get("/metrics", HttpEndpoints.metricsRoute(metrics));
    }
    SegmentAllocator allocator = parts.allocator();
    LeafGrpcService service = parts.service();
    new IdEndpoints(
            allocator,
            config.api().calls().maxWait(),
            new IdEndpoints.Issuers(snowflakeIds(parts.snowflake()), issuer, parts.ordering()),
            access,
            metrics == null ? flag -> {} : metrics::limitRefused)
        .addTo(routes);
    new LedgerEndpoint(service::whoIssued, access).addTo(routes);
    new UuidEndpoint(
            new Uuids(parts.snowflake(), new SecureRandom())::next,
            access,
            metrics == null ? flag -> {} : metrics::limitRefused)
        .addTo(routes);
    List<MonitorData.Limit> limits =
        List.of(
            new MonitorData.Limit(
                "--max-waiting", config.segments().engine().maxWaiting(), allocator::waitingCalls),
            new MonitorData.Limit(
                "--max-streams", config.api().streams().maxStreams(), service::openStreams),
            new MonitorData.Limit(
                "--max-stream-memory", service.streamMemoryBytes(), service::streamMemoryUsedBytes),
            new MonitorData.Limit("--max-watches", config.api().streams().maxWatches(), null),
            new MonitorData.Limit(
                "--max-queued-loads", config.segments().engine().loaders().queue(), null),
            new MonitorData.Limit(
                "--max-queued-first-loads", config.segments().engine().firstLoads().queue(), null),
            new MonitorData.Limit(
                "--max-queued-db-calls", config.api().dbCalls().maxQueued(), null),
            new MonitorData.Limit(
                HttpConfig.MAX_CONNECTIONS_FLAG, config.http().maxConnections(), httpConnections));
    new MonitorPage(
            new MonitorData(
                allocator,
                parts.health()::databaseUp,
                limits,
                metrics == null ? Map::of : metrics::refusals,
                workerLease(parts.snowflake()),
                new MonitorData.TagViews(issuer::view, parts.ordering()::describe)),
            config.ops().monitorPublic() ? null : access)
        .addTo(routes);
    return routes;
  }

  /** {@code /api/snowflake/get/{key}}: IDs of {@code snowflake}, failures as failed futures. */
  private static SnowflakeIds snowflakeIds(Snowflake snowflake) {
    return () -> {
      try {
        return CompletableFuture.completedFuture(snowflake.nextId());
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    };
  }

  /** What the monitor page shows of the worker lease. */
  private static WorkerLeaseView workerLease(Snowflake snowflake) {
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
