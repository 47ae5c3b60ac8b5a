package io.leaf.server.http;

import io.leaf.server.security.Caller;
import io.leaf.server.security.Role;
import io.leaf.server.security.TokenAccess;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The monitor: {@code GET /} a page rendered on the server, whose script refreshes it from {@code
 * GET /api/monitor.json} every two seconds; every value is escaped, so it is shown as text and
 * never run.
 *
 * <p>No external asset, no build step; works offline. Values are escaped as HTML on the server and
 * set as {@code textContent} in the script, so a tag named {@code <script>} is shown, never run,
 * and a format character in it (a bidi control such as U+202E) is shown as its code, never applied;
 * the page's placeholders are filled in one pass, so a value holding {@code {{tags}}} (a pattern
 * may) stays text. The page's Content-Security-Policy allows its own script and style by their
 * hashes, nothing inline besides.
 *
 * <p>Formatted tags have a table of their own (pattern, current period, numbers left in the width),
 * and each period row in the tags table ({@code order#20261126}) names the formatted tag and period
 * it serves.
 *
 * <p>The page and its JSON list tag names, so they follow the token rule ({@link TokenAccess}): a
 * caller sees the tags its token's scope holds and their period rows (every tag for the admin and
 * client tokens, and for anyone where no token is needed), unless {@code --monitor-public} opens
 * every tag to anyone.
 */
public final class MonitorPage {

  public static final String JSON_PATH = "/api/monitor.json";

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z]+)}}");

  /**
   * The page may run only its own script and style (by their SHA-256 hashes), fetch only from this
   * server, and be framed by no one.
   */
  static final String CSP =
      "default-src 'none'; script-src "
          + hash(MonitorAssets.SCRIPT)
          + "; style-src "
          + hash(MonitorAssets.STYLE)
          + "; connect-src 'self'; base-uri 'none';"
          + " form-action 'none'; frame-ancestors 'none'";

  private final MonitorData data;
  private final TokenAccess access;

  /**
   * @param access the token rule the page follows; null: every tag open to anyone
   */
  public MonitorPage(MonitorData data, TokenAccess access) {
    this.data = data;
    this.access = access;
  }

  /** Adds {@code GET /} and {@code GET /api/monitor.json}. */
  public HttpRoutes addTo(HttpRoutes routes) {
    return routes
        .get(
            "/",
            call -> {
              MonitorData.Snapshot shown = visible(call);
              if (shown != null) {
                call.respond(
                    HttpResponseStatus.OK,
                    "text/html; charset=utf-8",
                    html(shown),
                    "Content-Security-Policy",
                    CSP);
              }
            })
        .get(
            JSON_PATH,
            call -> {
              MonitorData.Snapshot shown = visible(call);
              if (shown != null) {
                call.respond(
                    HttpResponseStatus.OK,
                    "application/json; charset=utf-8",
                    MonitorJson.of(shown));
              }
            });
  }

  /** What the caller may see; null when its token was refused (the call is answered). */
  private MonitorData.Snapshot visible(HttpCall call) {
    if (access == null) {
      return data.snapshot();
    }
    Caller caller =
        BearerTokens.admit(
            access,
            call,
            Role.ISSUE,
            "the monitor",
            " (a token of" + " the tags to see; --monitor-public opens the monitor to anyone)");
    if (caller == null) {
      return null;
    }
    return caller.scope().all()
        ? data.snapshot()
        : data.snapshot(MonitorData.withPeriodRows(caller::allows));
  }

  /** A CSP source matching exactly {@code text}: {@code 'sha256-<base64>'}. */
  private static String hash(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return "'sha256-" + Base64.getEncoder().encodeToString(digest) + "'";
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  static String num(double d) {
    return String.format(Locale.ROOT, "%.2f", d);
  }

  static String html(MonitorData.Snapshot s) {
    StringBuilder tags = new StringBuilder();
    for (MonitorData.TagRow t : s.tags()) {
      tags.append("<tr><td class=\"tag\">")
          .append(Html.escape(t.tag()))
          .append("</td><td>")
          .append(segmentText(t.segments().current()))
          .append("</td><td>")
          .append(segmentText(t.segments().next()))
          .append("</td><td>")
          .append(t.segments().effectiveStep())
          .append("</td><td>")
          .append(num(t.activity().idsPerSecond()))
          .append("</td><td>")
          .append(
              t.activity().lastLoadSecondsAgo() < 0
                  ? "–"
                  : num(t.activity().lastLoadSecondsAgo()) + " s ago")
          .append("</td><td>")
          .append(Html.escape(periodText(t.periodOf())))
          .append("</td><td>")
          .append(Html.escape(t.ordering()))
          .append("</td></tr>\n");
    }
    StringBuilder formatted = new StringBuilder();
    for (MonitorData.FormattedRow f : s.formatted()) {
      formatted
          .append("<tr><td class=\"tag\">")
          .append(Html.escape(f.tag()))
          .append("</td><td class=\"tag\">")
          .append(Html.escape(f.pattern()))
          .append("</td><td>")
          .append(Html.escape(f.period().isEmpty() ? "never resets" : f.period()))
          .append("</td><td>")
          .append(f.numbersLeft() < 0 ? "–" : f.numbersLeft())
          .append("</td><td class=\"tag\">")
          .append(Html.escape(f.row()))
          .append("</td></tr>\n");
    }
    StringBuilder limits = new StringBuilder();
    for (MonitorData.LimitRow l : s.limits()) {
      limits
          .append("<tr><td>")
          .append(Html.escape(l.flag()))
          .append("</td><td>")
          .append(l.limit())
          .append("</td><td>")
          .append(l.inUse() == null ? "–" : l.inUse().toString())
          .append("</td><td>")
          .append(l.refusals())
          .append("</td></tr>\n");
    }
    StringBuilder lease = new StringBuilder();
    for (Map.Entry<String, String> e : s.lease()) {
      lease
          .append("<tr><td>")
          .append(Html.escape(e.getKey()))
          .append("</td><td>")
          .append(Html.escape(e.getValue()))
          .append("</td></tr>\n");
    }
    return fill(
        Map.of(
            "db", s.server().databaseUp() ? "up" : "down",
            "dbclass", s.server().databaseUp() ? "ok" : "bad",
            "count",
                s.server().cachedTags()
                    + (s.server().cachedTags() > s.tags().size()
                        ? " (first " + s.tags().size() + " shown)"
                        : ""),
            "tags", tags.toString(),
            "formatted", formatted.toString(),
            "limits", limits.toString(),
            "lease", lease.toString()));
  }

  /**
   * {@link MonitorAssets#PAGE} with each {@code {{name}}} replaced, in one pass: no value is
   * searched.
   */
  private static String fill(Map<String, String> values) {
    Matcher m = PLACEHOLDER.matcher(MonitorAssets.PAGE);
    StringBuilder out = new StringBuilder(MonitorAssets.PAGE.length() + 4096);
    while (m.find()) {
      m.appendReplacement(
          out, Matcher.quoteReplacement(values.getOrDefault(m.group(1), m.group())));
    }
    return m.appendTail(out).toString();
  }

  /**
   * A period row's formatted tag and period, as the page shows it ("order, period 20261126"); the
   * script writes the same.
   */
  static String periodText(MonitorData.PeriodOf p) {
    if (p == null) {
      return "–";
    }
    return p.tag()
        + ", "
        + (p.key().equals("all") ? "never resets" : "period " + p.key())
        + (p.current() ? "" : " (earlier)");
  }

  /** "cursor of [start, end) · used%" as the page shows a segment. */
  private static String segmentText(MonitorData.Segment s) {
    if (s == null) {
      return "–";
    }
    return Html.escape(
        Math.min(s.cursor(), s.end())
            + " in ["
            + s.start()
            + ", "
            + s.end()
            + ") · "
            + String.format(Locale.ROOT, "%.1f", s.usedPercent())
            + "% used");
  }
}
