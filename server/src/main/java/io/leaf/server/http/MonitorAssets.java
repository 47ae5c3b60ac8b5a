package io.leaf.server.http;

/**
 * The fixed text of the monitor page: its HTML template, its style sheet and its script, the latter
 * two allowed by their hashes in the page's Content-Security-Policy.
 */
final class MonitorAssets {

  /** The page's style sheet, allowed by its hash ({@link MonitorPage#CSP}). */
  static final String STYLE =
      """
      body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
      h1{font-size:1.4em;margin:0 0 .3em} h2{font-size:1.1em;margin:1.4em 0 .4em}
      table{border-collapse:collapse;min-width:40em} td,th{border-bottom:1px solid #ddd;
      padding:.25em .8em;text-align:left;font-variant-numeric:tabular-nums}
      th{background:#f4f4f4} .ok{color:#137333;font-weight:bold} .bad{color:#b3261e;
      font-weight:bold} .tag{font-family:ui-monospace,monospace} #age{color:#666}
      """;

  /** The page's script, allowed by its hash ({@link MonitorPage#CSP}): refreshes the tables. */
  static final String SCRIPT =
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

  /**
   * The page, its values to fill in as {@code {{name}}} placeholders ({@link MonitorPage#html}).
   */
  static final String PAGE =
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

  private MonitorAssets() {}
}
