package io.leaf.server.sequence;

import com.google.common.base.Ticker;
import com.google.common.hash.Hashing;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-key sequences of the sequence groups this server owns: {@link #next} gives a key's next
 * value, strictly above every value the key was given before, by any server or term.
 *
 * <p>Keys hash into {@link #SECTIONS} sections per tag, each with one stored ceiling ({@link
 * SectionStore}); {@link #GROUPS} groups of sections per tag, each owned under its own lease
 * ({@link #leaseKey}), so a tag's keys spread over the servers.
 *
 * <p>Thread-safe. A call whose section is in memory and below its ceiling is answered inline in
 * amortized O(1); otherwise it continues once the section's statement (one at a time, on {@code
 * database}) has run. Heap: about 16 bytes per slot of the key tables (at most {@code
 * --sequence-max-keys} keys, three quarters full or more after growth), plus the sections of the
 * tags in use.
 */
public final class Sequences {

  /** Sections per tag. */
  public static final int SECTIONS = 1024;

  /**
   * Groups of sections per tag, each owned under its own lease. Every server must agree on it: it
   * decides which lease fences a key.
   */
  public static final int GROUPS = 16;

  /** Sections per group: group {@code g} holds sections {@code g * PER_GROUP} to the next's. */
  public static final int PER_GROUP = SECTIONS / GROUPS;

  /** How far each raise lifts a section's ceiling (seqsvr's step). */
  public static final long STEP = 10_000;

  /** The longest key, in bytes of UTF-8. */
  public static final int MAX_KEY_BYTES = 128;

  private static final Logger log = LoggerFactory.getLogger(Sequences.class);
  private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

  private final SectionStore store;
  private final SerialDatabase database;
  private final KeyBudget budget;
  private final Ticker ticker;
  private final long step;
  private final Map<String, TagSections> tags = new ConcurrentHashMap<>();

  /**
   * @param maxKeys keys kept in memory at once ({@code --sequence-max-keys})
   * @param database runs the section statements (one at a time)
   */
  public Sequences(SectionStore store, long maxKeys, Ticker ticker, Executor database) {
    this(store, maxKeys, ticker, database, STEP);
  }

  Sequences(SectionStore store, long maxKeys, Ticker ticker, Executor database, long step) {
    this.store = store;
    this.budget = new KeyBudget(maxKeys);
    this.ticker = ticker;
    this.database = new SerialDatabase(database);
    this.step = step;
  }

  /**
   * The rule of a key: 1-128 bytes of UTF-8.
   *
   * @return its bytes
   * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT naming the rule
   */
  public static byte[] keyBytes(String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    if (bytes.length == 0 || bytes.length > MAX_KEY_BYTES) {
      throw Status.INVALID_ARGUMENT
          .withDescription(
              "key must be 1-" + MAX_KEY_BYTES + " bytes of UTF-8, got " + bytes.length + " bytes")
          .asRuntimeException();
    }
    return bytes;
  }

  /**
   * The key's 64-bit hash, which picks its section and group.
   *
   * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for a bad key ({@link #keyBytes})
   */
  public static long hash(String key) {
    return Hashing.murmur3_128().hashBytes(keyBytes(key)).asLong();
  }

  /** The group of a key's {@link #hash}. */
  public static int group(long hash) {
    return section(hash) / PER_GROUP;
  }

  /** The group of a section. */
  public static int groupOf(int section) {
    return section / PER_GROUP;
  }

  private static int section(long hash) {
    return (int) (hash & (SECTIONS - 1));
  }

  /**
   * The name of group {@code group}'s lease: {@code bizTag#group}, which no tag can be named
   * ({@code #} is not in a tag name).
   */
  public static String leaseKey(String bizTag, int group) {
    return bizTag + '#' + group;
  }

  /** {@link #next(String, long, OwnerTerm)} by the key; a bad key fails INVALID_ARGUMENT. */
  public CompletableFuture<Long> next(String bizTag, String key, OwnerTerm term) {
    long hash;
    try {
      hash = hash(key);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return next(bizTag, hash, term, 0);
  }

  /**
   * The next value of the key with {@link #hash} {@code hash} on {@code bizTag}, in {@code term},
   * an owner term of the key's group.
   */
  public CompletableFuture<Long> next(String bizTag, long hash, OwnerTerm term) {
    return next(bizTag, hash, term, 0);
  }

  private CompletableFuture<Long> next(String bizTag, long hash, OwnerTerm term, int lookups) {
    TagSections t = tags.computeIfAbsent(bizTag, TagSections::new);
    t.lastUsed = ticker.read();
    CompletableFuture<Void> ready = t.ready(group(hash), term);
    if (!ready.isDone()) {
      return ready.thenCompose(v -> next(bizTag, hash, term, lookups));
    }
    Section s = t.section(section(hash));
    CompletableFuture<Long> v = s.next(hash, term);
    if (v.isDone() && !v.isCompletedExceptionally()) {
      return v;
    }
    return v.handle(
            (value, e) -> {
              Throwable cause = e instanceof CompletionException ? e.getCause() : e;
              if (cause instanceof Section.RetiredException && lookups < 2) {
                return next(bizTag, hash, term, lookups + 1);
              }
              return e == null
                  ? CompletableFuture.completedFuture(value)
                  : CompletableFuture.<Long>failedFuture(cause);
            })
        .thenCompose(f -> f);
  }

  /**
   * Drops from memory the tags unused for {@code idleNanos}, and sweeps every section (keys unused
   * since the last sweep dropped) while the keys held pass three quarters of the budget.
   */
  public void tick(long idleNanos) {
    long now = ticker.read();
    tags.entrySet()
        .removeIf(
            e -> {
              if (now - e.getValue().lastUsed <= idleNanos) {
                return false;
              }
              e.getValue().retire();
              return true;
            });
    if (budget.held() * 4 > budget.max() * 3) {
      tags.values().forEach(TagSections::sweep);
    }
  }

  /** Keys held in memory now, over every tag. */
  public long keysHeld() {
    return budget.held();
  }

  /** Heap of the key tables' arrays now, in bytes. */
  public long keyTableBytes() {
    long bytes = 0;
    for (TagSections t : tags.values()) {
      bytes += t.keyBytes();
    }
    return bytes;
  }

  /** Ends every term's memory now (a graceful stop or a test's restart). */
  public void clear() {
    tags.values().forEach(TagSections::retire);
    tags.clear();
  }

  /** The sections of one tag, made when first used. */
  private final class TagSections {
    private final String bizTag;
    private final AtomicReferenceArray<Section> sections = new AtomicReferenceArray<>(SECTIONS);
    volatile long lastUsed;

    /** Set before its sections are retired: a section made after it is retired at once. */
    private volatile boolean retired;

    private final long[] startedTerm = new long[GROUPS];
    private final CompletableFuture<?>[] starting = new CompletableFuture<?>[GROUPS];

    /**
     * Completes once the term's start has raised every stored section of {@code group} in one
     * transaction (once per term; a failure leaves each section to load on its own).
     */
    @SuppressWarnings("unchecked")
    synchronized CompletableFuture<Void> ready(int group, OwnerTerm term) {
      if (startedTerm[group] == term.id()) {
        return DONE;
      }
      if (starting[group] != null) {
        return (CompletableFuture<Void>) starting[group];
      }
      CompletableFuture<Void> done = new CompletableFuture<>();
      starting[group] = done;
      database.execute(
          () -> {
            try {
              if (term.mayIssue()) {
                Map<Integer, Long> raised =
                    store.raiseGroup(bizTag, group, step, term.owner(), term.epoch());
                raised.forEach((i, c) -> section(i).adopt(term, c - step, c));
              }
            } catch (RuntimeException e) {
              log.warn(
                  "tag {} group {}: sections not raised at the term's start: {}",
                  bizTag,
                  group,
                  e.toString());
            } finally {
              synchronized (this) {
                startedTerm[group] = term.id();
                starting[group] = null;
              }
              done.complete(null);
            }
          });
      return done;
    }

    TagSections(String bizTag) {
      this.bizTag = bizTag;
    }

    Section section(int i) {
      Section s = sections.get(i);
      if (s != null) {
        return s;
      }
      sections.compareAndSet(i, null, new Section(bizTag, i, store, database, budget, step));
      s = sections.get(i);
      if (retired) {
        // Made after tick() dropped this tag: a second live copy of the section would break the
        // key's order, so it is retired too and the call looks the tag up again.
        s.retire();
      }
      return s;
    }

    void retire() {
      retired = true;
      forEach(Section::retire);
    }

    void sweep() {
      forEach(Section::sweep);
    }

    long keyBytes() {
      AtomicLong bytes = new AtomicLong();
      forEach(s -> bytes.addAndGet(s.keyBytes()));
      return bytes.get();
    }

    private void forEach(java.util.function.Consumer<Section> f) {
      for (int i = 0; i < SECTIONS; i++) {
        Section s = sections.get(i);
        if (s != null) {
          f.accept(s);
        }
      }
    }
  }
}
