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
          + hash(MonitorPage.SCRIPT)
          + "; style-src "
          + hash(MonitorPage.STYLE)
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
          .append(segmentText(t.current()))
          .append("</td><td>")
          .append(segmentText(t.next()))
          .append("</td><td>")
          .append(t.effectiveStep())
          .append("</td><td>")
          .append(num(t.idsPerSecond()))
          .append("</td><td>")
          .append(t.lastLoadSecondsAgo() < 0 ? "–" : num(t.lastLoadSecondsAgo()) + " s ago")
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
            "db", s.databaseUp() ? "up" : "down",
            "dbclass", s.databaseUp() ? "ok" : "bad",
            "count",
                s.cachedTags()
                    + (s.cachedTags() > s.tags().size()
                        ? " (first " + s.tags().size() + " shown)"
                        : ""),
            "tags", tags.toString(),
            "formatted", formatted.toString(),
            "limits", limits.toString(),
            "lease", lease.toString()));
  }

  /** {@link #PAGE} with each {@code {{name}}} replaced, in one pass: no value is searched. */
  private static String fill(Map<String, String> values) {
    Matcher m = PLACEHOLDER.matcher(PAGE);
    StringBuilder out = new StringBuilder(PAGE.length() + 4096);
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

  /** The page's style sheet, allowed by its hash ({@link #CSP}). */
  private static final String STYLE =
      """
      body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
      h1{font-size:1.4em;margin:0 0 .3em} h2{font-size:1.1em;margin:1.4em 0 .4em}
      table{border-collapse:collapse;min-width:40em} td,th{border-bottom:1px solid #ddd;
      padding:.25em .8em;text-align:left;font-variant-numeric:tabular-nums}
      th{background:#f4f4f4} .ok{color:#137333;font-weight:bold} .bad{color:#b3261e;
      font-weight:bold} .tag{font-family:ui-monospace,monospace} #age{color:#666}
      """;

  /** The page's script, allowed by its hash ({@link #CSP}): refreshes the tables. */
  private static final String SCRIPT =
      """
      "use strict";
      function seg(s) {
        if (!s) return "\\u2013";
        return s.cursor + " in [" + s.start + ", " + s.end + ") \\u00b7 "
          + Number(s.usedPercent).toFixed(1) + "% used";
      }
      function shown(v) {
        return String(v).replace(/\\p{Cf}/gu, function (c) {
          return "[U+" + c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") + "]";
        });
      }
      function periodOf(p) {
        if (!p) return "\\u2013";
        return p.tag + ", " + (p.key === "all" ? "never resets" : "period " + p.key)
          + (p.current ? "" : " (earlier)");
      }
      function fill(id, rows) {
        var body = document.getElementById(id);
        var fresh = document.createElement("tbody");
        fresh.id = id;
        rows.forEach(function (cells) {
          var tr = document.createElement("tr");
          cells.forEach(function (c, i) {
            var td = document.createElement("td");
            td.textContent = shown(c);
            if ((id === "tags" && i === 0) || (id === "formatted" && i !== 2 && i !== 3)) {
              td.className = "tag";
            }
            tr.appendChild(td);
          });
          fresh.appendChild(tr);
        });
        body.replaceWith(fresh);
      }
      function refresh() {
        fetch("/api/monitor.json", {cache: "no-store"}).then(function (r) {
          if (!r.ok) throw new Error("HTTP " + r.status);
          return r.json();
        }).then(function (m) {
          var db = document.getElementById("db");
          db.textContent = m.databaseUp ? "up" : "down";
          db.className = m.databaseUp ? "ok" : "bad";
          document.getElementById("count").textContent = m.cachedTags
            + (m.cachedTags > m.tags.length ? " (first " + m.tags.length + " shown)" : "");
          fill("tags", m.tags.map(function (t) {
            return [t.tag, seg(t.current), seg(t.next), t.effectiveStep,
              Number(t.idsPerSecond).toFixed(2),
              t.lastLoadSecondsAgo < 0 ? "\\u2013" : t.lastLoadSecondsAgo + " s ago",
              periodOf(t.periodOf), t.ordering];
          }));
          fill("formatted", m.formatted.map(function (f) {
            return [f.tag, f.pattern, f.period === "" ? "never resets" : f.period,
              f.numbersLeft < 0 ? "\\u2013" : f.numbersLeft, f.row];
          }));
          fill("limits", m.limits.map(function (l) {
            return [l.flag, l.limit, l.inUse === null ? "\\u2013" : l.inUse, l.refusals];
          }));
          fill("lease", m.lease.map(function (e) { return [e.label, e.value]; }));
          document.getElementById("age").textContent = "updated "
            + new Date().toLocaleTimeString();
        }).catch(function (e) {
          document.getElementById("age").textContent = "refresh failed: " + e.message;
        });
      }
      setInterval(refresh, 2000);
      """;

  private static final String PAGE =
      """
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>Leaf monitor</title>
      <style>\
      """
          + STYLE
          + """
          </style></head><body>
          <h1>Leaf monitor</h1>
          <p>Database: <span id="db" class="{{dbclass}}">{{db}}</span> ·
          tags held by this server: <span id="count">{{count}}</span> ·
          <span id="age">rendered by the server; refreshes every 2 s</span></p>
          <h2>Tags</h2>
          <table><thead><tr><th>tag</th><th>current segment</th><th>next segment</th>
          <th>effective step</th><th>IDs/s</th><th>last load</th><th>formatted tag</th>
          <th>ordering</th></tr></thead>
          <tbody id="tags">{{tags}}</tbody></table>
          <h2>Formatted tags</h2>
          <p>Each period of a formatted tag draws its numbers from a row of its own, named
          <span class="tag">tag#period</span> (<span class="tag">tag#all</span> for a format that
          never resets), listed above among the tags.</p>
          <table><thead><tr><th>tag</th><th>pattern</th><th>current period</th>
          <th>numbers left in the width (at most)</th><th>period row</th></tr></thead>
          <tbody id="formatted">{{formatted}}</tbody></table>
          <h2>Limits</h2>
          <table><thead><tr><th>flag</th><th>limit</th><th>in use</th><th>refusals</th></tr></thead>
          <tbody id="limits">{{limits}}</tbody></table>
          <h2>Worker lease</h2>
          <table><tbody id="lease">{{lease}}</tbody></table>
          <script>\
          """
          + SCRIPT
          + """
          </script>
          </body></html>
          """;
}
