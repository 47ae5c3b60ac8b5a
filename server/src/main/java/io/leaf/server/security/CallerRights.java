package io.leaf.server.security;

import io.grpc.Context;

/**
 * What the current gRPC call's caller may see beyond what the RPC itself grants: set by {@link
 * TokenAuthInterceptor}, read by the handlers.
 */
public final class CallerRights {

  /**
   * Whether the caller may read the sequence of an opaque formatted number (ParseFormattedId): the
   * right of a token of role admin. True on a server without tokens, where every RPC is open; the
   * token interceptor sets it for every ParseFormattedId call.
   */
  public static final Context.Key<Boolean> MAY_REVEAL_OPAQUE =
      Context.keyWithDefault("leaf-may-reveal-opaque", Boolean.TRUE);

  private CallerRights() {}

  /** {@link #MAY_REVEAL_OPAQUE} of the current call; read on the call's thread. */
  public static boolean mayRevealOpaque() {
    return MAY_REVEAL_OPAQUE.get();
  }
}
