package io.leaf.server.http;

import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.engine.SegmentAllocator;
import io.leaf.server.formats.FormattedIssuer;
import io.leaf.server.ordering.OrderedIds;
import io.leaf.server.request.TagNames;
import io.leaf.server.security.TokenAccess;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Meituan Leaf's HTTP API, the ID as the whole body in {@code text/plain} as Meituan Leaf's server
 * answers it, so its clients switch by changing the address.
 *
 * <p>{@code /api/segment/get/{biz_tag}} and {@code /api/snowflake/get/{key}} answer as Meituan's
 * do; {@code /api/formatted/get/{biz_tag}} answers a tag's next formatted number ({@code
 * NextFormattedId}) the same way. Errors are HTTP statuses with a one-line reason ({@link
 * HttpStatusMapping}). Like Meituan's, any method is accepted that a client may send (GET, POST).
 *
 * <p>Non-blocking: a tag with IDs buffered is answered on the connection's thread; one without
 * waits on the tag's pending load with no thread, bounded by {@code --max-wait} and {@code
 * --max-waiting}, and is answered from the load's completion. A client that leaves drops its wait.
 * Thread-safe.
 */
public final class IdEndpoints {

  public static final String SEGMENT = "/api/segment/get/";
  public static final String SNOWFLAKE = "/api/snowflake/get/";
  public static final String FORMATTED = "/api/formatted/get/";
  public static final String SEQUENCE = "/api/sequence/get/";
  static final Set<String> METHODS = Set.of("GET", "POST");

  private final SegmentAllocator allocator;
  private final long maxWaitNanos;
  private final SnowflakeIds snowflake;
  private final FormattedIssuer formatted;
  private final TokenAccess access;
  private final Consumer<String> refusals;
  private final OrderedIds ordered;

  /**
   * What issues the IDs other than segments: snowflake IDs, the formatted numbers of tags with a
   * format, and a STRICT tag's IDs served from its owner.
   */
  public record Issuers(SnowflakeIds snowflake, FormattedIssuer formatted, OrderedIds ordered) {}

  /**
   * @param maxWait longest a call waits for a segment ({@code --max-wait})
   * @param issuers snowflake IDs, formatted numbers and STRICT tags' IDs
   * @param access the token rule: each call takes one ID of its tag (snowflake: of no tag)
   * @param refusals told the flag of each limit that refuses a call
   */
  public IdEndpoints(
      SegmentAllocator allocator,
      Duration maxWait,
      Issuers issuers,
      TokenAccess access,
      Consumer<String> refusals) {
    this.ordered = issuers.ordered();
    this.allocator = allocator;
    this.maxWaitNanos = maxWait.toNanos();
    this.snowflake = issuers.snowflake();
    this.formatted = issuers.formatted();
    this.access = access;
    this.refusals = refusals;
  }

  /** Adds the four endpoints to {@code routes}. */
  public HttpRoutes addTo(HttpRoutes routes) {
    return routes
        .prefix(SEGMENT, METHODS, this::segment)
        .prefix(SNOWFLAKE, METHODS, this::snowflake)
        .prefix(FORMATTED, METHODS, this::formatted)
        .prefix(SEQUENCE, METHODS, this::sequence);
  }

  private void segment(HttpCall call) {
    String tag = key(call, SEGMENT);
    if (tag == null || !BearerTokens.allowed(access, call, tag, 1)) {
      return;
    }
    String problem = TagNames.problem(tag);
    if (problem != null) {
      call.fail(HttpResponseStatus.BAD_REQUEST, problem);
      return;
    }
    CompletableFuture<Long> next;
    try {
      next =
          ordered.nextId(
              tag,
              () -> {
                long id = allocator.tryNextId(tag);
                return id != SegmentAllocator.NO_ID
                    ? CompletableFuture.completedFuture(id)
                    : allocator.nextId(tag, allocator.deadline(maxWaitNanos, false));
              });
    } catch (RuntimeException e) {
      fail(call, e);
      return;
    }
    answer(call, next, IdEndpoints::decimal);
  }

  private void snowflake(HttpCall call) {
    if (key(call, SNOWFLAKE) == null || !BearerTokens.allowed(access, call, null, 1)) {
      return;
    }
    CompletableFuture<Long> next;
    try {
      next = snowflake.nextId();
    } catch (RuntimeException e) {
      fail(call, e);
      return;
    }
    answer(call, next, IdEndpoints::decimal);
  }

  /**
   * The next formatted number: like a segment ID, answered inline when the tag's period row has
   * numbers buffered, else when its format, row or segment has been read, with no thread waiting.
   */
  private void formatted(HttpCall call) {
    String tag = key(call, FORMATTED);
    if (tag == null || !BearerTokens.allowed(access, call, tag, 1)) {
      return;
    }
    String problem = TagNames.problem(tag);
    if (problem != null) {
      call.fail(HttpResponseStatus.BAD_REQUEST, problem);
      return;
    }
    CompletableFuture<String> next;
    try {
      next =
          ordered.nextFormattedId(
              tag, () -> formatted.next(tag, allocator.deadline(maxWaitNanos, false)));
    } catch (RuntimeException e) {
      fail(call, e);
      return;
    }
    answer(call, next, Function.identity());
  }

  /**
   * {@code /api/sequence/get/{biz_tag}/{key}}: the key's next value on a STRICT tag (NextSequence),
   * from the tag's owner, here or forwarded; both parts percent-encoded.
   */
  private void sequence(HttpCall call) {
    String raw = call.path().substring(SEQUENCE.length());
    int slash = raw.indexOf('/');
    if (slash <= 0 || slash == raw.length() - 1 || raw.indexOf('/', slash + 1) >= 0) {
      call.fail(
          HttpResponseStatus.NOT_FOUND,
          "no such path: "
              + HttpRoutes.shown(call.path())
              + " (use "
              + SEQUENCE
              + "{biz_tag}/{key}, both percent-encoded)");
      return;
    }
    String tag;
    String key;
    try {
      tag = PathTags.decode(raw.substring(0, slash));
      key = PathTags.decode(raw.substring(slash + 1));
    } catch (IllegalArgumentException e) {
      call.fail(HttpResponseStatus.BAD_REQUEST, e.getMessage());
      return;
    }
    if (!BearerTokens.allowed(access, call, tag, 1)) {
      return;
    }
    CompletableFuture<Long> next;
    try {
      next = ordered.nextSequence(tag, key);
    } catch (RuntimeException e) {
      fail(call, e);
      return;
    }
    answer(call, next, IdEndpoints::decimal);
  }

  /** The decoded key after {@code prefix}; null when the call was answered 400/404 instead. */
  private static String key(HttpCall call, String prefix) {
    String raw = call.path().substring(prefix.length());
    if (raw.isEmpty() || raw.indexOf('/') >= 0) {
      // Meituan's {key} is one non-empty path segment; anything else is no such path.
      call.fail(
          HttpResponseStatus.NOT_FOUND,
          "no such path: "
              + HttpRoutes.shown(call.path())
              + " (use "
              + prefix
              + "{key}, the key percent-encoded)");
      return null;
    }
    try {
      return PathTags.decode(raw);
    } catch (IllegalArgumentException e) {
      call.fail(HttpResponseStatus.BAD_REQUEST, e.getMessage());
      return null;
    }
  }

  private <T> void answer(HttpCall call, CompletableFuture<T> next, Function<T, String> body) {
    if (!next.isDone()) {
      call.onCancel(() -> next.cancel(false));
    }
    next.whenComplete(
        (value, e) -> {
          if (e == null) {
            call.respond(HttpResponseStatus.OK, HttpCall.TEXT, body.apply(value));
          } else if (!(unwrap(e) instanceof CancellationException)) {
            fail(call, e);
          }
        });
  }

  private static String decimal(Long id) {
    return Long.toString(id);
  }

  private static void answerId(HttpCall call, long id) {
    call.respond(HttpResponseStatus.OK, HttpCall.TEXT, Long.toString(id));
  }

  private void fail(HttpCall call, Throwable e) {
    Throwable cause = unwrap(e);
    if (cause instanceof LimitExceededException limit) {
      refusals.accept(limit.flag());
    }
    HttpStatusMapping.Answer answer = HttpStatusMapping.answer(cause);
    call.fail(answer.status(), answer.reason());
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }
}
