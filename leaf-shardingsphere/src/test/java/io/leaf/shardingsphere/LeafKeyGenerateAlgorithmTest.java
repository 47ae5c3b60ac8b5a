package io.leaf.shardingsphere;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leaf.client.LeafClient;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm;
import org.apache.shardingsphere.infra.spi.type.typed.TypedSPILoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The LEAF key generator as ShardingSphere loads it, against the packaged Leaf server. */
@Tag("slow")
class LeafKeyGenerateAlgorithmTest {

  private static final AlgorithmSQLContext ORDERS =
      new AlgorithmSQLContext("shop", "public", "t_order", "order_id");

  private static PackagedLeafServer server;
  private static LeafClient client;

  @BeforeAll
  static void start() throws Exception {
    server = new PackagedLeafServer();
    client = LeafClient.forTarget(server.target()).usePlaintext().build();
    client.createTag("t_order", 0, 100, "sharded orders");
    client.createTag("order", 0, 100, "sharded orders by tag");
  }

  @AfterAll
  static void stop() throws Exception {
    LeafKeyGenerators.clear();
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private static KeyGenerateAlgorithm load(Properties props) {
    return TypedSPILoader.getService(KeyGenerateAlgorithm.class, "LEAF", props);
  }

  @Test
  void generateKeys_10000From8Threads_noDuplicate() throws Exception {
    Properties props = new Properties();
    props.setProperty("target", server.target());
    KeyGenerateAlgorithm algorithm = load(props);
    assertTrue(algorithm instanceof LeafKeyGenerateAlgorithm, "found by type LEAF: " + algorithm);
    Set<Long> keys = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<Integer>> done = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      done.add(
          pool.submit(
              () -> {
                int n = 0;
                for (int i = 0; i < 125; i++) {
                  for (Comparable<?> key : algorithm.generateKeys(ORDERS, 10)) {
                    keys.add((Long) key);
                    n++;
                  }
                }
                return n;
              }));
    }
    int total = 0;
    for (Future<Integer> f : done) {
      total += f.get(5, TimeUnit.MINUTES);
    }
    pool.shutdown();
    assertEquals(10_000, total, "keys generated");
    assertEquals(10_000, keys.size(), "distinct keys");
    List<Long> direct =
        List.of(client.nextIds("t_order", 100)).stream()
            .flatMap(a -> java.util.Arrays.stream(a).boxed())
            .toList();
    assertTrue(direct.stream().noneMatch(keys::contains), "the table's tag, no key issued twice");
  }

  @Test
  void generateKeys_tagProperty_usesThatTagThroughTheRegisteredClient() {
    LeafKeyGenerators.register(client);
    Properties props = new Properties();
    props.setProperty("tag", "order");
    Collection<Long> keys = ((LeafKeyGenerateAlgorithm) load(props)).generateKeys(ORDERS, 3);
    assertEquals(List.of(1L, 2L, 3L), List.copyOf(keys), "the first IDs of tag order");
  }

  @Test
  void generateKeys_nothingRegistered_saysHowToConfigure() {
    LeafKeyGenerators.clear();
    KeyGenerateAlgorithm algorithm = load(new Properties());
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> algorithm.generateKeys(ORDERS, 1));
    assertTrue(e.getMessage().contains("props target"), e.getMessage());
  }
}
