package io.leaf.server.http;

import java.util.Map;

/**
 * {@code /api/monitor.json}: what the monitor page shows ({@link MonitorData.Snapshot}) as JSON,
 * every string escaped by {@link Json} (no raw {@code <}, so it is inert even if read as HTML).
 */
final class MonitorJson {

  private MonitorJson() {}

  static String of(MonitorData.Snapshot s) {
    StringBuilder out = new StringBuilder(256 + 256 * (s.tags().size() + s.formatted().size()));
    out.append("{\"databaseUp\":")
        .append(s.server().databaseUp())
        .append(",\"cachedTags\":")
        .append(s.server().cachedTags())
        .append(",\"uptimeSeconds\":")
        .append(MonitorPage.num(s.server().uptimeSeconds()))
        .append(",\"tags\":[");
    for (int i = 0; i < s.tags().size(); i++) {
      MonitorData.TagRow t = s.tags().get(i);
      out.append(i == 0 ? "" : ",")
          .append("{\"tag\":")
          .append(Json.string(t.tag()))
          .append(",\"current\":")
          .append(segment(t.segments().current()))
          .append(",\"next\":")
          .append(segment(t.segments().next()))
          .append(",\"effectiveStep\":")
          .append(t.segments().effectiveStep())
          .append(",\"idsPerSecond\":")
          .append(MonitorPage.num(t.activity().idsPerSecond()))
          .append(",\"lastLoadSecondsAgo\":")
          .append(MonitorPage.num(t.activity().lastLoadSecondsAgo()))
          .append(",\"lastAccessSecondsAgo\":")
          .append(MonitorPage.num(t.activity().lastAccessSecondsAgo()))
          .append(",\"periodOf\":")
          .append(periodOf(t.periodOf()))
          .append(",\"ordering\":")
          .append(Json.string(t.ordering()))
          .append('}');
    }
    out.append("],\"formatted\":[");
    for (int i = 0; i < s.formatted().size(); i++) {
      MonitorData.FormattedRow f = s.formatted().get(i);
      out.append(i == 0 ? "" : ",")
          .append("{\"tag\":")
          .append(Json.string(f.tag()))
          .append(",\"pattern\":")
          .append(Json.string(f.pattern()))
          .append(",\"period\":")
          .append(Json.string(f.period()))
          .append(",\"row\":")
          .append(Json.string(f.row()))
          .append(",\"numbersLeft\":")
          .append(f.numbersLeft())
          .append('}');
    }
    out.append("],\"limits\":[");
    for (int i = 0; i < s.limits().size(); i++) {
      MonitorData.LimitRow l = s.limits().get(i);
      out.append(i == 0 ? "" : ",")
          .append("{\"flag\":")
          .append(Json.string(l.flag()))
          .append(",\"limit\":")
          .append(l.limit())
          .append(",\"inUse\":")
          .append(l.inUse() == null ? "null" : l.inUse().toString())
          .append(",\"refusals\":")
          .append(l.refusals())
          .append('}');
    }
    out.append("],\"lease\":[");
    for (int i = 0; i < s.lease().size(); i++) {
      Map.Entry<String, String> e = s.lease().get(i);
      out.append(i == 0 ? "" : ",")
          .append("{\"label\":")
          .append(Json.string(e.getKey()))
          .append(",\"value\":")
          .append(Json.string(e.getValue()))
          .append('}');
    }
    return out.append("]}").toString();
  }

  private static String periodOf(MonitorData.PeriodOf p) {
    if (p == null) {
      return "null";
    }
    return "{\"tag\":"
        + Json.string(p.tag())
        + ",\"key\":"
        + Json.string(p.key())
        + ",\"current\":"
        + p.current()
        + "}";
  }

  private static String segment(MonitorData.Segment s) {
    if (s == null) {
      return "null";
    }
    return "{\"start\":"
        + s.start()
        + ",\"end\":"
        + s.end()
        + ",\"cursor\":"
        + Math.min(s.cursor(), s.end())
        + ",\"usedPercent\":"
        + MonitorPage.num(s.usedPercent())
        + "}";
  }
}
