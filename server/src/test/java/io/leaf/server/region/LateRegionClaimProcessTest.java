package io.leaf.server.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.leaf.server.store.DataSources;
import io.leaf.server.testing.Poll;
import io.leaf.server.testing.ServerNode;
import io.leaf.server.testing.ServerProcess;
import io.leaf.server.testing.TcpProxy;
import io.leaf.server.testing.TestDatabase;
import io.leaf.server.testing.TestDatabases;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextSnowflakeIdRequest;
import io.leaf.v1.SnowflakeServiceGrpc;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Server processes on MariaDB whose region changes under them: a server without {@code --region}
 * stops issuing, and turns NOT_SERVING, once another server claims the database for region 1/2, and
 * a server whose {@code --region} contradicts a database that was down at its start never issues a
 * snowflake ID and exits 2 once the database answers.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("LateRegionClaimProcessTest")
class LateRegionClaimProcessTest {

  private static final Pattern LISTENING = Pattern.compile("Leaf listening on port (\\d+)");

  @Test
  @Timeout(240)
  void nextId_regionClaimedAfterServerWithoutRegionStarted_noIdOutsideTheShare() throws Exception {
    try (TestDatabase db = TestDatabases.mariaDb()) {
      ServerNode plain = new ServerNode(db);
      ServerNode claimer = new ServerNode(db, "--region", "1/2");
      try {
        claimer
            .stub(30)
            .createTag(CreateTagRequest.newBuilder().setBizTag("order").setStep(10).build());
        Region share = Region.of(1, 2);
        long first = share.base();
        long last = share.toId(share.maxLocalMaxId() - 1);
        int outside = 0;
        int refused = 0;
        String reason = "";
        for (int i = 0; i < 200; i++) {
          try {
            long id =
                plain
                    .stub(30)
                    .nextId(NextIdRequest.newBuilder().setBizTag("order").build())
                    .getId();
            if (id < first || id > last) {
              outside++;
            }
          } catch (StatusRuntimeException e) {
            assertEquals(
                Status.Code.FAILED_PRECONDITION,
                e.getStatus().getCode(),
                "the refusal: " + e.getStatus());
            refused++;
            reason = e.getStatus().getDescription();
          }
          long id =
              claimer
                  .stub(30)
                  .nextId(NextIdRequest.newBuilder().setBizTag("order").build())
                  .getId();
          assertTrue(id >= first && id <= last, "region 1/2's server issues its share: " + id);
        }
        assertEquals(
            0, outside, "IDs the server without --region issued outside region 1/2's" + " share");
        assertEquals(200, refused, "every NextId of the server without --region is refused");
        assertTrue(reason.contains("leaf_region") && reason.contains("--region 1/2"), reason);
        // Readiness tells the truth too: the server can no longer issue IDs.
        assertTrue(
            Poll.until(() -> readiness(plain) == ServingStatus.NOT_SERVING, Duration.ofSeconds(15)),
            "readiness of the server without --region: " + readiness(plain));
        assertEquals(ServingStatus.SERVING, readiness(claimer), "region 1/2's server");
      } finally {
        plain.stop();
        claimer.stop();
      }
    }
  }

  @Test
  @Timeout(240)
  void nextSnowflakeId_contradictingRegionWhileDatabaseDownAtStart_noneIssuedAndExit2()
      throws Exception {
    try (TestDatabase db = TestDatabases.mariaDb();
        TcpProxy proxy =
            new TcpProxy(
                "127.0.0.1",
                "127.0.0.1",
                URI.create(db.url.substring("jdbc:".length())).getPort())) {
      new JooqRegionStore(db.pool(1), DataSources.dialectOf(db.url), InstantSource.system())
          .claim(new StoredRegion("high-bits", 0, 2));
      proxy.start();
      proxy.stop();
      URI direct = URI.create(db.url.substring("jdbc:".length()));
      String viaProxy =
          db.url.replace(direct.getHost() + ":" + direct.getPort(), "127.0.0.1:" + proxy.port());
      ServerProcess server =
          ServerProcess.start(
              "--port",
              "0",
              "--db-url",
              viaProxy,
              "--db-user",
              db.user,
              "--db-password",
              db.password,
              "--db-pool-size",
              "2",
              "--region",
              "1/2");
      ManagedChannel channel = null;
      try {
        assertTrue(
            server.awaitLine("Leaf listening", 90, TimeUnit.SECONDS),
            "the server listens with its database down:\n" + server.output());
        Matcher m = LISTENING.matcher(server.output());
        assertTrue(m.find(), server.output());
        channel =
            ManagedChannelBuilder.forAddress("127.0.0.1", Integer.parseInt(m.group(1)))
                .usePlaintext()
                .build();
        SnowflakeServiceGrpc.SnowflakeServiceBlockingStub stub =
            SnowflakeServiceGrpc.newBlockingStub(channel);
        AtomicInteger issued = new AtomicInteger();
        List<Status.Code> codes = new ArrayList<>();
        long downUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < downUntil) {
          call(stub, issued, codes);
        }
        proxy.start();
        Integer exit = null;
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (exit == null && System.nanoTime() < giveUp) {
          call(stub, issued, codes);
          exit = server.awaitExit(50, TimeUnit.MILLISECONDS);
        }
        assertNotNull(exit, "the server exits once the region check fails:\n" + server.output());
        assertEquals(2, exit, "exit code:\n" + server.output());
        assertEquals(
            0, issued.get(), "snowflake IDs issued before the region check; codes " + codes);
        assertTrue(
            server.output().contains("--region 1/2 contradicts the database's region 0/2"),
            server.output());
      } finally {
        if (channel != null) {
          channel.shutdownNow();
        }
        server.close();
      }
    }
  }

  private static ServingStatus readiness(ServerNode node) {
    try {
      return HealthGrpc.newBlockingStub(node.channel)
          .withDeadlineAfter(5, TimeUnit.SECONDS)
          .check(HealthCheckRequest.getDefaultInstance())
          .getStatus();
    } catch (StatusRuntimeException e) {
      return ServingStatus.UNKNOWN;
    }
  }

  private static void call(
      SnowflakeServiceGrpc.SnowflakeServiceBlockingStub stub,
      AtomicInteger issued,
      List<Status.Code> codes) {
    try {
      stub.withDeadlineAfter(2, TimeUnit.SECONDS)
          .nextSnowflakeId(NextSnowflakeIdRequest.getDefaultInstance());
      issued.incrementAndGet();
    } catch (StatusRuntimeException e) {
      if (codes.isEmpty() || codes.get(codes.size() - 1) != e.getStatus().getCode()) {
        codes.add(e.getStatus().getCode());
      }
    }
  }
}
