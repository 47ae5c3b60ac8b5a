"""The owners of STRICT tags a LeafClient has heard of, and a channel to each.

A server names a STRICT tag's owner (its ``--advertise-address``) in the ``leaf-owner`` header of
its answers; with ``call_owners=True`` the client sends later ID calls on that tag to the owner
first and saves the hop between servers. The rules of the Java client's OwnerRoutes: only
``HOST:PORT`` values are taken (never a target URI: a scheme, a unix socket, a name server), at
most ``MAX_TAGS`` tags and ``MAX_OWNERS`` owner channels are kept (channels no tag names any more
are closed to make room), and an owner that could not be reached is passed over for a while.
Thread-safe.
"""
import re
import threading

# A host name or IPv4 address, or an IPv6 one in brackets, and a port.
_HOST_PORT = re.compile(r"(?:[A-Za-z0-9][A-Za-z0-9.-]{0,252}|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}")

MAX_TAGS = 1024
MAX_OWNERS = 16
OWNER_HEADER = "leaf-owner"


class OwnerRoutes:
    """``connect(address)`` makes a route (with ``channel`` and ``stub``) to an owner's
    ``HOST:PORT`` and may raise for an address gRPC cannot use; an owner that could not be
    reached is passed over for ``retry_after`` seconds of ``clock``."""

    def __init__(self, connect, retry_after, clock):
        self._connect = connect
        self._retry_after = retry_after
        self._clock = clock
        self._lock = threading.Lock()
        self._owner_of_tag = {}
        self._routes = {}
        self._unreachable_since = {}
        self._closed = False

    def learn(self, tag, owner):
        """Hears ``owner`` named for ``tag`` in an answer."""
        if not isinstance(owner, str) or not _HOST_PORT.fullmatch(owner):
            return
        with self._lock:
            if len(self._owner_of_tag) >= MAX_TAGS and tag not in self._owner_of_tag:
                self._owner_of_tag.clear()  # a rough bound: the tags in use are heard of again
            self._owner_of_tag[tag] = owner

    def hear(self, tag, call):
        """Hears the owner of ``tag`` that ``call`` (an answered call or a grpc.RpcError) names
        in its headers or trailers."""
        for read in ("initial_metadata", "trailing_metadata"):
            metadata = getattr(call, read, None)
            for key, value in (metadata() if metadata else None) or ():
                if key == OWNER_HEADER:
                    self.learn(tag, value)
                    return

    def owner_of(self, tag):
        """The route to ``tag``'s owner to call first; None when there is none to try."""
        with self._lock:
            address = self._owner_of_tag.get(tag)
            if address is None or self._closed:
                return None
            since = self._unreachable_since.get(address)
            if since is not None:
                if self._clock() - since < self._retry_after:
                    return None
                del self._unreachable_since[address]
            route = self._routes.get(address)
            return route if route is not None else self._open(tag, address)

    def _open(self, tag, address):
        """A route to ``address``, made now; None when full or the address is unusable."""
        if len(self._routes) >= MAX_OWNERS:
            # Owners no tag names any more (restarted elsewhere, moved) make room.
            named = set(self._owner_of_tag.values())
            for a in [a for a in self._routes if a not in named]:
                self._routes.pop(a).channel.close()
            if len(self._routes) >= MAX_OWNERS:
                return None
        try:
            route = self._connect(address)
        except Exception:  # an address gRPC cannot use
            self._mark_unreachable(tag, address)
            return None
        self._routes[address] = route
        return route

    def unreachable(self, tag, owner):
        """``owner`` did not answer a call on ``tag``: passed over for a while."""
        with self._lock:
            self._mark_unreachable(tag, owner)

    def _mark_unreachable(self, tag, owner):
        if self._owner_of_tag.get(tag) == owner:
            del self._owner_of_tag[tag]
        if len(self._unreachable_since) >= MAX_TAGS:
            self._unreachable_since.clear()
        self._unreachable_since[owner] = self._clock()

    def channels(self):
        """How many owner channels are open."""
        with self._lock:
            return len(self._routes)

    def tags(self):
        """How many tags' owners are remembered."""
        with self._lock:
            return len(self._owner_of_tag)

    def close(self):
        with self._lock:
            self._closed = True
            routes = list(self._routes.values())
            self._routes.clear()
        for route in routes:
            route.channel.close()
