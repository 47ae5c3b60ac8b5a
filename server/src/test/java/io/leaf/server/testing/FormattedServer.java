package io.leaf.server.testing;

import com.google.common.base.Ticker;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.config.TokenConfig;
import io.leaf.server.engine.EngineConfig;
import io.leaf.server.formats.JooqFormatStore;
import io.leaf.server.security.TokenAuthInterceptor;
import io.leaf.server.store.DataSources;
import io.leaf.server.store.JooqSegmentStore;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.FormattedIdBatch;
import io.leaf.v1.IdFormat;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.Reset;
import io.leaf.v1.Tag;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * An in-process server on a test database (its own pool, tags and formats in the database) whose
 * formatted numbers read a fake wall clock of its own; {@link #close()} stops it.
 */
public final class FormattedServer implements AutoCloseable {

  public final FakeWallClock clock;
  public final InProcessLeaf leaf;

  private FormattedServer(FakeWallClock clock, InProcessLeaf leaf) {
    this.clock = clock;
    this.leaf = leaf;
  }

  /**
   * A server on {@code db} reading {@code clock}, with the command line's {@code flags} (tokens
   * checked as a packaged server checks them); its segment takes are recorded in {@code log} (null:
   * not recorded).
   */
  public static FormattedServer start(
      TestDatabase db, FakeWallClock clock, SegmentLog log, String... flags) throws Exception {
    DataSource pool = db.pool(4);
    var dialect = DataSources.dialectOf(db.url);
    JooqSegmentStore store = new JooqSegmentStore(pool, dialect, InstantSource.system());
    store.createSchemaIfMissing();
    JooqFormatStore formats = new JooqFormatStore(pool, dialect, InstantSource.system());
    TokenConfig tokens = ServerConfig.parse(flags, env -> null).ops().tokens();
    InProcessLeaf leaf =
        new InProcessLeaf(
            log == null ? store : log.wrap(store),
            Ticker.systemTicker(),
            EngineConfig.DEFAULTS.withBackoff(Duration.ofMillis(20), Duration.ofMillis(200)),
            s -> {
              s.formats(formats).wallClock(clock);
              if (tokens.adminToken() != null) {
                // As a server from the command line checks them.
                s.intercept(new TokenAuthInterceptor(tokens.adminToken(), tokens.clientToken()));
              }
            },
            flags);
    return new FormattedServer(clock, leaf);
  }

  /** {@code IdFormat} of {@code pattern}, {@code reset} and {@code zone} (empty: UTC). */
  public static IdFormat format(String pattern, Reset reset, String zone) {
    return IdFormat.newBuilder().setPattern(pattern).setReset(reset).setTimeZone(zone).build();
  }

  /** Creates {@code tag} with {@code format} and {@code step}. */
  public Tag createTag(String tag, int step, IdFormat format) {
    return leaf.blocking.createTag(
        CreateTagRequest.newBuilder().setBizTag(tag).setStep(step).setFormat(format).build());
  }

  /** One NextFormattedId. */
  public String next(String tag) {
    return leaf.blocking
        .withDeadlineAfter(30, TimeUnit.SECONDS)
        .nextFormattedId(NextIdRequest.newBuilder().setBizTag(tag).build())
        .getValue();
  }

  /** One NextFormattedIdBatch of {@code count} values, read to its end. */
  public List<String> batch(String tag, int count) {
    Iterator<FormattedIdBatch> it =
        leaf.blocking
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .nextFormattedIdBatch(
                NextIdBatchRequest.newBuilder().setBizTag(tag).setCount(count).build());
    List<String> values = new ArrayList<>(count);
    it.forEachRemaining(b -> values.addAll(b.getValuesList()));
    return values;
  }

  @Override
  public void close() throws Exception {
    leaf.close();
  }
}
