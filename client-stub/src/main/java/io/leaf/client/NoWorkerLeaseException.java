package io.leaf.client;

import io.grpc.Status;

/**
 * {@link LocalSnowflakeIds} makes no ID now: it holds no worker lease it knows to be valid (not yet
 * leased, still quarantined, not renewed in time, lost) or its clock ran past what the lease
 * covers. A later call may succeed once the lease is renewed or leased again (UNAVAILABLE).
 */
public final class NoWorkerLeaseException extends LeafException {

  private static final long serialVersionUID = 1L;

  public NoWorkerLeaseException(String description) {
    super(Status.Code.UNAVAILABLE, description, null);
  }
}
