package io.leaf.shardingsphere;

import io.leaf.client.CachedIdGenerator;
import io.leaf.client.LeafClient;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm;

/**
 * The ShardingSphere key generator of type {@code LEAF}: each key is the next ID of a Leaf tag, the
 * {@code tag} property or else the logical table's name, from that tag's {@link CachedIdGenerator}.
 *
 * <p>Properties: {@code tag} (optional), {@code target} (optional, host:port of a Leaf server or
 * several separated by commas: this generator then builds its own client, plaintext unless {@code
 * tls} is {@code true}, sending {@code token} when set); without {@code target} it uses the
 * generators registered in {@link LeafKeyGenerators}. {@link #close()} closes what it built.
 */
public final class LeafKeyGenerateAlgorithm implements KeyGenerateAlgorithm, AutoCloseable {

  /* ShardingSphere's algorithm SPI (TypedSPI) has no close hook, so a generator built from
   * `target` owns a client nobody else can close: close() closes its generators and client, and a
   * JVM shutdown hook calls close() for the owners that never do (removed once close() ran). With
   * no target nothing is owned here: the registered generators belong to LeafKeyGenerators. */

  private String tag;
  private Function<String, CachedIdGenerator> generators = LeafKeyGenerators::get;
  private Owned owned;

  @Override
  public void init(Properties props) {
    close();
    String t = props.getProperty("tag", "").trim();
    tag = t.isEmpty() ? null : t;
    String target = props.getProperty("target", "").trim();
    if (!target.isEmpty()) {
      LeafClient.Builder b = LeafClient.forTargets(List.of(target.split("\\s*,\\s*")));
      if (Boolean.parseBoolean(props.getProperty("tls", "false"))) {
        b.useTls();
      } else {
        b.usePlaintext();
      }
      String token = props.getProperty("token", "");
      if (!token.isEmpty()) {
        b.token(token);
      }
      Owned o = new Owned(b.build(), new ConcurrentHashMap<>());
      generators = o::generator;
      Runtime.getRuntime().addShutdownHook(o.hook);
      owned = o;
    }
  }

  /**
   * Closes the generators and the client this generator built from {@code target} (their cached IDs
   * are lost: gaps, never repeats); later keys throw {@link IllegalStateException}. Idempotent;
   * nothing to close without {@code target}.
   */
  @Override
  public synchronized void close() {
    Owned o = owned;
    if (o == null) {
      return;
    }
    owned = null;
    o.close();
    try {
      Runtime.getRuntime().removeShutdownHook(o.hook);
    } catch (IllegalStateException shuttingDown) {
      // Called from the hook itself, or during shutdown: nothing left to remove.
    }
  }

  @Override
  public Collection<Long> generateKeys(AlgorithmSQLContext context, int keyGenerateCount) {
    String bizTag = tag != null ? tag : context.getTableName();
    if (bizTag == null || bizTag.isEmpty()) {
      throw new IllegalStateException(
          "the LEAF key generator needs a tag: set props tag, or use " + "it on a logical table");
    }
    CachedIdGenerator generator = generators.apply(bizTag);
    List<Long> keys = new ArrayList<>(keyGenerateCount);
    for (int i = 0; i < keyGenerateCount; i++) {
      keys.add(generator.next());
    }
    return keys;
  }

  /** The client and generators built from {@code target}, closed together. */
  private static final class Owned {
    private final LeafClient client;
    private final Map<String, CachedIdGenerator> built;
    private final Thread hook;
    private volatile boolean closed;

    Owned(LeafClient client, Map<String, CachedIdGenerator> built) {
      this.client = client;
      this.built = built;
      this.hook = new Thread(this::close, "leaf-key-generator-close");
    }

    CachedIdGenerator generator(String bizTag) {
      if (closed) {
        throw new IllegalStateException("the LEAF key generator is closed");
      }
      return built.computeIfAbsent(bizTag, n -> CachedIdGenerator.builder(client, n).build());
    }

    synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      built.values().forEach(CachedIdGenerator::close);
      client.close();
    }
  }

  @Override
  public String getType() {
    return "LEAF";
  }
}
