package io.leaf.mybatis;

import com.baomidou.mybatisplus.annotation.TableName;
import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import com.baomidou.mybatisplus.core.metadata.TableInfo;
import com.baomidou.mybatisplus.core.metadata.TableInfoHelper;
import io.leaf.client.CachedIdGenerator;
import io.leaf.client.LeafClient;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A MyBatis-Plus {@link IdentifierGenerator} handing each entity the next ID of its Leaf tag; a
 * rolled-back insert leaves a gap, never a repeat.
 *
 * <p>The tag is the one mapped to the entity's class, else its table name ({@code @TableName} or
 * MyBatis-Plus's table info). IDs come from one {@link CachedIdGenerator} per tag, so an insert
 * rarely waits for the server.
 */
public final class LeafIdentifierGenerator implements IdentifierGenerator, AutoCloseable {

  private final Function<String, CachedIdGenerator> generators;
  private final Map<Class<?>, String> tags;
  private final Map<String, CachedIdGenerator> built = new ConcurrentHashMap<>();
  private final Map<Class<?>, String> resolved = new ConcurrentHashMap<>();

  /** Generators with the defaults, built on first use of each tag and closed by {@link #close}. */
  public LeafIdentifierGenerator(LeafClient client) {
    this(client, Map.of());
  }

  /** As {@link #LeafIdentifierGenerator(LeafClient)}, with tags for some entity classes. */
  public LeafIdentifierGenerator(LeafClient client, Map<Class<?>, String> tags) {
    Objects.requireNonNull(client, "client");
    this.generators =
        tag -> built.computeIfAbsent(tag, t -> CachedIdGenerator.builder(client, t).build());
    this.tags = Map.copyOf(tags);
  }

  /**
   * The caller's generators ({@code generators.apply(tag)} on each insert, e.g. the Spring Boot
   * starter's {@code LeafIdGenerators::get}), with tags for some entity classes.
   */
  public LeafIdentifierGenerator(
      Function<String, CachedIdGenerator> generators, Map<Class<?>, String> tags) {
    this.generators = Objects.requireNonNull(generators, "generators");
    this.tags = Map.copyOf(tags);
  }

  @Override
  public Number nextId(Object entity) {
    return generators.apply(tagOf(entity.getClass())).next();
  }

  /** The Leaf tag of {@code entityClass}'s IDs. */
  public String tagOf(Class<?> entityClass) {
    return resolved.computeIfAbsent(entityClass, this::resolve);
  }

  private String resolve(Class<?> entityClass) {
    String mapped = tags.get(entityClass);
    if (mapped != null) {
      return mapped;
    }
    TableName name = entityClass.getAnnotation(TableName.class);
    if (name != null && !name.value().isEmpty()) {
      return name.value();
    }
    TableInfo info = TableInfoHelper.getTableInfo(entityClass);
    if (info != null && info.getTableName() != null) {
      return info.getTableName();
    }
    throw new IllegalStateException(
        "no Leaf tag for "
            + entityClass.getName()
            + ": map it when building LeafIdentifierGenerator, or give it @TableName");
  }

  /** Closes the generators this built (not the client, nor generators the caller supplied). */
  @Override
  public void close() {
    built.values().forEach(CachedIdGenerator::close);
  }
}
