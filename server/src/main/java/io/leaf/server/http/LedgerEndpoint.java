package io.leaf.server.http;

import io.grpc.stub.StreamObserver;
import io.leaf.server.security.TokenAccess;
import io.leaf.v1.IssuedRange;
import io.leaf.v1.WhoIssuedRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * {@code GET /api/ledger/{biz_tag}/{id}}: WhoIssued over HTTP, the record as JSON, or 404 when no
 * record holds the ID.
 *
 * <p>The record's fields are {@code start}, {@code end}, {@code server}, {@code time_ms} and {@code
 * kind}. The token rule is WhoIssued's: role {@code issue} with the tag in scope, no IDs taken. The
 * read runs where the gRPC call's does (the database-call threads, with its timeout); the
 * connection's thread never waits. Thread-safe.
 */
public final class LedgerEndpoint {

  public static final String PATH = "/api/ledger/";

  private final BiConsumer<WhoIssuedRequest, StreamObserver<IssuedRange>> whoIssued;
  private final TokenAccess access;

  /**
   * @param whoIssued the gRPC service's WhoIssued, answering on its own threads
   */
  public LedgerEndpoint(
      BiConsumer<WhoIssuedRequest, StreamObserver<IssuedRange>> whoIssued, TokenAccess access) {
    this.whoIssued = whoIssued;
    this.access = access;
  }

  public HttpRoutes addTo(HttpRoutes routes) {
    return routes.prefix(PATH, Set.of("GET"), this::handle);
  }

  private void handle(HttpCall call) {
    String rest = call.path().substring(PATH.length());
    int slash = rest.lastIndexOf('/');
    if (slash <= 0 || rest.indexOf('/') != slash) {
      call.fail(
          HttpResponseStatus.NOT_FOUND,
          "no such path: "
              + HttpRoutes.shown(call.path())
              + " (use "
              + PATH
              + "{biz_tag}/{id}, the tag percent-encoded)");
      return;
    }
    String tag;
    long id;
    try {
      tag = PathTags.decode(rest.substring(0, slash));
      id = Long.parseLong(rest.substring(slash + 1));
    } catch (NumberFormatException e) {
      call.fail(
          HttpResponseStatus.BAD_REQUEST,
          "id must be a decimal 64-bit integer, got "
              + HttpRoutes.shown(rest.substring(slash + 1)));
      return;
    } catch (IllegalArgumentException e) {
      call.fail(HttpResponseStatus.BAD_REQUEST, e.getMessage());
      return;
    }
    if (!BearerTokens.allowed(access, call, tag, 0)) {
      return;
    }
    whoIssued.accept(
        WhoIssuedRequest.newBuilder().setBizTag(tag).setId(id).build(),
        new StreamObserver<>() {
          @Override
          public void onNext(IssuedRange r) {
            call.respond(
                HttpResponseStatus.OK,
                "application/json",
                "{\"start\":"
                    + r.getStart()
                    + ",\"end\":"
                    + r.getEnd()
                    + ",\"server\":"
                    + Json.string(r.getServer())
                    + ",\"time_ms\":"
                    + r.getTimeMs()
                    + ",\"kind\":"
                    + Json.string(r.getKind())
                    + "}");
          }

          @Override
          public void onError(Throwable t) {
            HttpStatusMapping.Answer answer = HttpStatusMapping.answer(t);
            call.fail(answer.status(), answer.reason());
          }

          @Override
          public void onCompleted() {}
        });
  }
}
