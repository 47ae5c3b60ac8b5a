package io.leaf.server.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which handler answers which path: exact paths, then path prefixes, each for a set of methods; any
 * other path is 404 and any other method 405 (with {@code Allow}). Built before the server starts
 * and read-only after, so thread-safe.
 */
public final class HttpRoutes {

  /** Answers one call; may answer later, from another thread, but must not block. */
  @FunctionalInterface
  public interface Route {
    void handle(HttpCall call);
  }

  private record Entry(Set<String> methods, Route route) {}

  private final Map<String, Entry> exact = new LinkedHashMap<>();
  private final List<Map.Entry<String, Entry>> prefixes = new ArrayList<>();

  /** {@code GET path}. */
  public HttpRoutes get(String path, Route route) {
    exact.put(path, new Entry(Set.of("GET"), route));
    return this;
  }

  /** Every path starting with {@code prefix}, for {@code methods}. */
  public HttpRoutes prefix(String prefix, Set<String> methods, Route route) {
    prefixes.add(Map.entry(prefix, new Entry(methods, route)));
    return this;
  }

  void dispatch(HttpCall call) {
    Entry entry = exact.get(call.path());
    if (entry == null) {
      for (Map.Entry<String, Entry> p : prefixes) {
        if (call.path().startsWith(p.getKey())) {
          entry = p.getValue();
          break;
        }
      }
    }
    if (entry == null) {
      call.fail(HttpResponseStatus.NOT_FOUND, "no such path: " + shown(call.path()));
      return;
    }
    if (!entry.methods().contains(call.method())) {
      call.fail(
          HttpResponseStatus.METHOD_NOT_ALLOWED,
          call.method()
              + " is not allowed here; use "
              + String.join(" or ", entry.methods().stream().sorted().toList()),
          HttpHeaderNames.ALLOW,
          String.join(", ", entry.methods().stream().sorted().toList()));
      return;
    }
    entry.route().handle(call);
  }

  /** A path as it may appear in a one-line reason: bounded, no control characters. */
  static String shown(String path) {
    String s = path.length() > 100 ? path.substring(0, 100) + "…" : path;
    StringBuilder out = new StringBuilder();
    s.codePoints().forEach(cp -> out.appendCodePoint(Character.isISOControl(cp) ? '?' : cp));
    return out.toString();
  }
}
