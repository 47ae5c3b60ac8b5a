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
 * generators registered in {@link LeafKeyGenerators}.
 */
public final class LeafKeyGenerateAlgorithm implements KeyGenerateAlgorithm {

  private String tag;
  private Function<String, CachedIdGenerator> generators = LeafKeyGenerators::get;

  @Override
  public void init(Properties props) {
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
      LeafClient client = b.build();
      Map<String, CachedIdGenerator> built = new ConcurrentHashMap<>();
      generators =
          name -> built.computeIfAbsent(name, n -> CachedIdGenerator.builder(client, n).build());
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

  @Override
  public String getType() {
    return "LEAF";
  }
}
