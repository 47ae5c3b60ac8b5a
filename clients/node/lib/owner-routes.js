'use strict';
// OwnerRoutes: the owners of STRICT tags a LeafClient has heard of (the `leaf-owner` response
// header, the owner's --advertise-address) and a channel to each, so that ID calls on such a tag go
// to its owner first and save the hop between servers. The rules of the Java client's OwnerRoutes:
// only HOST:PORT values are taken (never a target URI: a scheme, a unix socket, a name server), at
// most MAX_TAGS tags and MAX_OWNERS owner channels are kept (channels no tag names any more are
// closed to make room), and an owner that could not be reached is passed over for retryAfterMs.

/** A host name or IPv4 address, or an IPv6 one in brackets, and a port. */
const HOST_PORT = /^(?:[A-Za-z0-9][A-Za-z0-9.-]{0,252}|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}$/;

const MAX_TAGS = 1024;
const MAX_OWNERS = 16;

class OwnerRoutes {
  /**
   * @param {(address: string) => {stub: object, close: () => void}} connect a route to an owner's
   *   HOST:PORT (its stub and how to close it); may throw for an address gRPC cannot use
   * @param {number} retryAfterMs how long an owner that could not be reached is passed over
   * @param {() => number} clock milliseconds, monotonic
   */
  constructor(connect, retryAfterMs, clock) {
    this.connect = connect;
    this.retryAfterMs = retryAfterMs;
    this.clock = clock;
    this.ownerOfTag = new Map();
    this.routes = new Map();
    this.unreachableSince = new Map();
    this.closed = false;
  }

  /** Hears `owner` named for `tag` in an answer. */
  learn(tag, owner) {
    if (typeof owner !== 'string' || !HOST_PORT.test(owner)) return;
    if (this.ownerOfTag.size >= MAX_TAGS && !this.ownerOfTag.has(tag)) {
      this.ownerOfTag.clear(); // a rough bound: the tags in use are heard of again
    }
    this.ownerOfTag.set(tag, owner);
  }

  /** Hears the owner of `tag` (null: none) named in `metadata`, an answer's headers or trailers. */
  hear(tag, metadata) {
    if (tag === null || !metadata) return;
    const [owner] = metadata.get('leaf-owner');
    if (owner !== undefined) this.learn(tag, String(owner));
  }

  /** The owner of `tag` to call first, `{ address, stub }`; null when there is none to try. */
  ownerOf(tag) {
    const address = this.ownerOfTag.get(tag);
    if (address === undefined || this.closed) return null;
    const since = this.unreachableSince.get(address);
    if (since !== undefined) {
      if (this.clock() - since < this.retryAfterMs) return null;
      this.unreachableSince.delete(address);
    }
    const route = this.routes.get(address) ?? this.open(tag, address);
    return route === null ? null : { address, stub: route.stub };
  }

  /** A route to `address`, made now; null when full or the address is unusable. */
  open(tag, address) {
    if (this.routes.size >= MAX_OWNERS) {
      // Owners no tag names any more (restarted elsewhere, moved) make room.
      const named = new Set(this.ownerOfTag.values());
      for (const [a, route] of this.routes) {
        if (!named.has(a)) {
          route.close();
          this.routes.delete(a);
        }
      }
      if (this.routes.size >= MAX_OWNERS) return null;
    }
    let route;
    try {
      route = this.connect(address);
    } catch {
      this.unreachable(tag, address); // an address gRPC cannot use
      return null;
    }
    this.routes.set(address, route);
    return route;
  }

  /** `owner` did not answer a call on `tag`: passed over for a while. */
  unreachable(tag, owner) {
    if (this.ownerOfTag.get(tag) === owner) this.ownerOfTag.delete(tag);
    if (this.unreachableSince.size >= MAX_TAGS) this.unreachableSince.clear();
    this.unreachableSince.set(owner, this.clock());
  }

  /** How many owner channels are open. */
  get channels() {
    return this.routes.size;
  }

  close() {
    this.closed = true;
    for (const route of this.routes.values()) route.close();
    this.routes.clear();
  }
}

module.exports = { OwnerRoutes, MAX_TAGS, MAX_OWNERS };
