package io.leaf.server.http;

import io.leaf.server.engine.LimitExceededException;
import io.leaf.server.security.TokenAccess;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * {@code GET /api/uuid/get}: the server's next version 7 UUID as the whole body ({@code
 * text/plain}, canonical lower case), answered on the connection's thread. Thread-safe.
 *
 * <p>A UUID is a lock, two clock reads and 16 random bytes. The token rule is NextUuid's: role
 * {@code issue}, one ID of no tag. Errors as the other ID routes' ({@link HttpStatusMapping}: no
 * lease → 503).
 */
public final class UuidEndpoint {

  public static final String PATH = "/api/uuid/get";

  private final Supplier<UUID> uuids;
  private final TokenAccess access;
  private final Consumer<String> refusals;

  /**
   * @param uuids the next UUID, or the reason there is none (thrown)
   * @param refusals told the flag of each limit that refuses a call
   */
  public UuidEndpoint(Supplier<UUID> uuids, TokenAccess access, Consumer<String> refusals) {
    this.uuids = uuids;
    this.access = access;
    this.refusals = refusals;
  }

  public HttpRoutes addTo(HttpRoutes routes) {
    return routes.get(PATH, this::handle);
  }

  private void handle(HttpCall call) {
    if (!BearerTokens.allowed(access, call, null, 1)) {
      return;
    }
    UUID uuid;
    try {
      uuid = uuids.get();
    } catch (RuntimeException e) {
      if (e instanceof LimitExceededException limit) {
        refusals.accept(limit.flag());
      }
      HttpStatusMapping.Answer answer = HttpStatusMapping.answer(e);
      call.fail(answer.status(), answer.reason());
      return;
    }
    call.respond(HttpResponseStatus.OK, HttpCall.TEXT, uuid.toString());
  }
}
