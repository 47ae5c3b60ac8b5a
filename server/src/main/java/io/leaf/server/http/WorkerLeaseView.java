package io.leaf.server.http;

import java.util.List;
import java.util.Map;

/**
 * What the monitor page shows of this server's snowflake worker lease: label and value rows, in
 * order (worker ID, expiry, epoch and the like), read when the page asks. Must not block.
 */
@FunctionalInterface
public interface WorkerLeaseView {

  /** A server that issues no snowflake IDs holds no lease. */
  WorkerLeaseView NONE =
      () -> List.of(Map.entry("lease", "none: snowflake IDs are not served by this server"));

  List<Map.Entry<String, String>> rows();
}
