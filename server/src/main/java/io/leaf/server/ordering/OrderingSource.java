package io.leaf.server.ordering;

import com.google.common.base.Ticker;
import io.grpc.ManagedChannel;
import io.leaf.server.config.ServerConfig;
import io.leaf.server.config.TlsConfig;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.security.TlsCredentials;
import io.leaf.server.sequence.JooqSectionStore;
import io.leaf.server.sequence.MemorySectionStore;
import io.leaf.server.sequence.SectionStore;
import io.leaf.server.store.SegmentStore;
import io.leaf.server.threads.ServerThreads;
import java.time.InstantSource;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jooq.SQLDialect;

/**
 * Where the orderings of tags are kept and how another server is reached: the database and Netty in
 * production; tests pass one store shared by their servers and in-process channels.
 *
 * @param connect a channel to another server's advertised address; null: Netty, over TLS (this
 *     server's certificate offered, {@code --tls-peer-ca} trusted) when the server serves TLS
 */
public record OrderingSource(
    OrderingStore store,
    OrderingStore groupLeases,
    SectionStore sections,
    Function<String, ManagedChannel> connect) {

  /** {@code store} with the sequences' sections in memory, fenced by {@code store}'s leases. */
  public OrderingSource(OrderingStore store, Function<String, ManagedChannel> connect) {
    this(store, memorySections(store), connect);
  }

  /** {@code store} holding the sequence groups' leases too (in memory: {@code tag#group} rows). */
  public OrderingSource(
      OrderingStore store, SectionStore sections, Function<String, ManagedChannel> connect) {
    this(store, store, sections, connect);
  }

  /** Sections in memory whose raises hold while {@code leases} names the owner and epoch. */
  public static SectionStore memorySections(OrderingStore leases) {
    return new MemorySectionStore(
        (tag, owner, epoch) -> {
          LeaseRow r = leases.read(tag);
          return r.ordering() == TagOrdering.STRICT
              && r.owner().equals(owner)
              && r.epoch() == epoch
              && r.remainingMs() > 0;
        });
  }

  /** In memory, this server alone; Netty channels. */
  public static OrderingSource inMemory() {
    return new OrderingSource(new MemoryOrderingStore(InstantSource.system()), null);
  }

  /**
   * {@code leaf_tag_lease} and the sequences' tables in {@code pool}'s database; Netty channels.
   */
  public static OrderingSource database(DataSource pool, SQLDialect dialect) {
    return new OrderingSource(
        new JooqOrderingStore(pool, dialect, InstantSource.system()),
        new JooqOrderingStore(pool, dialect, InstantSource.system(), JooqSectionStore.LEASES),
        new JooqSectionStore(pool, dialect, InstantSource.system()),
        null);
  }

  /**
   * The ordering of a server over {@code tags} and {@code allocator}, its leases on {@code
   * threads}, which {@link Ordering#close()} shuts down.
   */
  public Ordering open(
      SegmentStore tags,
      SegmentAllocator allocator,
      ServerConfig config,
      ScheduledExecutorService threads) {
    TlsConfig tls = config.ops().tls();
    TlsCredentials peers =
        connect == null && tls.enabled()
            ? TlsCredentials.forPeers(tls, ServerThreads.scheduler("leaf-tls-peer-refresh"))
            : null;
    Function<String, ManagedChannel> reach =
        connect != null
            ? connect
            : peers != null ? Forwarder.over(peers.peerCredentials()) : Forwarder::plaintext;
    return new Ordering(
        new Ordering.Stores(store, new SequenceLeases(groupLeases), sections, tags),
        allocator,
        config.idSpace().ordering(),
        Ticker.systemTicker(),
        threads,
        new Ordering.Forwarding(
            config.api().calls().maxWait(),
            config.api().calls().maxBatch(),
            reach,
            peers != null ? peers : () -> {}));
  }
}
