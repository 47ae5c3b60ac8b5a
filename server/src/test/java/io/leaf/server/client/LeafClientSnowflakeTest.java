package io.leaf.server.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.client.InvalidArgumentException;
import io.leaf.client.LeafClient;
import io.leaf.server.store.MemorySegmentStore;
import io.leaf.server.testing.InProcessLeaf;
import io.leaf.server.testing.Poll;
import io.leaf.v1.SnowflakeIdParts;
import io.leaf.v1.Uuid;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class LeafClientSnowflakeTest {

  @Test
  void snowflakeCalls_againstServer_idsIncreaseAndDecode() throws Exception {
    try (InProcessLeaf leaf =
            new InProcessLeaf(
                new MemorySegmentStore(),
                "--worker-id-range",
                "42-42",
                "--worker-lease-ttl",
                "1s");
        LeafClient client = LeafClient.forChannel(leaf.channel).build()) {
      Poll.until(() -> client.getWorker().getWorkerId() >= 0, Duration.ofSeconds(10));
      long one = client.nextSnowflakeId();
      long[] many = client.nextSnowflakeIds(25_000);
      assertEquals(25_000, many.length, "count");
      Set<Long> seen = new HashSet<>();
      long last = one;
      for (long id : many) {
        assertTrue(id > last, "increasing after the unary ID");
        assertTrue(seen.add(id), "unique");
        last = id;
      }
      SnowflakeIdParts parts = client.decode(one);
      assertEquals(42, parts.getWorkerId(), "worker ID of the server");
      assertTrue(
          Math.abs(parts.getTimestampMs() - System.currentTimeMillis()) < 60_000, "issued now");
      assertThrows(InvalidArgumentException.class, () -> client.decode(-1), "negative");
    }
  }

  @Test
  void nextUuid_againstServer_version7OfThisWorkerIncreasing() throws Exception {
    try (InProcessLeaf leaf =
            new InProcessLeaf(
                new MemorySegmentStore(),
                "--worker-id-range",
                "42-42",
                "--worker-lease-ttl",
                "1s");
        LeafClient client = LeafClient.forChannel(leaf.channel).build()) {
      assertTrue(
          Poll.until(() -> client.getWorker().getWorkerId() >= 0, Duration.ofSeconds(10)),
          "a worker lease");
      Uuid first = client.nextUuid();
      Uuid second = client.nextUuid();
      assertEquals(7, UUID.fromString(first.getValue()).version(), "version 7");
      assertEquals(
          42,
          (UUID.fromString(first.getValue()).getLeastSignificantBits() >>> 52) & 0x3FF,
          "the server's worker ID in rand_b's top 10 bits");
      assertTrue(first.getValue().compareTo(second.getValue()) < 0, "increasing");
      assertTrue(first.getUlid().compareTo(second.getUlid()) < 0, "ULIDs too");
      assertEquals(26, second.getUlid().length(), "the ULID");
    }
  }
}
