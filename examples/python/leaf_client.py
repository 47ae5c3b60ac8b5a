"""A small blocking client for leaf.v1.LeafService and leaf.v1.SnowflakeService.

The stubs are generated from the repository's proto/ (see ``generate_stubs``), so the client
always matches the contract. IDs are Python ints (64-bit values keep every digit). Failures
raise ``grpc.RpcError``: ``err.code()`` is a ``grpc.StatusCode``.
"""
import collections
import importlib
import os
import subprocess
import sys
import time

import grpc

from leaf_owners import OwnerRoutes

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROTO_ROOT = os.path.join(REPO, "proto")


def generate_stubs(out_dir):
    """Compiles proto/leaf/v1/*.proto into ``out_dir`` and returns (messages, services) of
    leaf.proto; the snowflake modules (``leaf.v1.snowflake_pb2``) are importable beside them."""
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", "-I", PROTO_ROOT,
         "--python_out", out_dir, "--grpc_python_out", out_dir,
         os.path.join(PROTO_ROOT, "leaf", "v1", "leaf.proto"),
         os.path.join(PROTO_ROOT, "leaf", "v1", "snowflake.proto")],
        check=True)
    for package in ("leaf", os.path.join("leaf", "v1")):
        # Namespace packages would do, but an explicit __init__ keeps older Pythons happy too.
        open(os.path.join(out_dir, package, "__init__.py"), "a").close()
    if out_dir not in sys.path:
        sys.path.insert(0, out_dir)
    return (importlib.import_module("leaf.v1.leaf_pb2"),
            importlib.import_module("leaf.v1.leaf_pb2_grpc"))


IdFormat = collections.namedtuple("IdFormat", "pattern reset time_zone",
                                  defaults=("NEVER", "UTC"))
IdFormat.__doc__ = """How a tag's numbers are written: ``pattern`` such as
``ORD-{yyyyMMdd}-{seq:6}{check:luhn}``, ``reset`` "NEVER", "DAILY", "MONTHLY" or "YEARLY", and
``time_zone`` an IANA name."""

FormattedIdParts = collections.namedtuple("FormattedIdParts", "period sequence check_valid")
FormattedIdParts.__doc__ = """A formatted number read back: ``sequence`` is None for an opaque
number read without the admin token."""


# How grpcio (the C core) reports a connection closed or reset under a call: besides UNAVAILABLE,
# UNKNOWN "Stream removed" or INTERNAL naming the reset stream or socket.
_LOST_DETAILS = ("stream removed", "socket closed", "connection reset", "rst_stream",
                 "connection dropped", "channel closed", "broken pipe")


def connection_lost(error):
    """Whether ``error`` (a grpc.RpcError) is a lost connection rather than a server's answer."""
    code = error.code()
    if code == grpc.StatusCode.UNAVAILABLE:
        return True
    if code not in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL):
        return False
    details = (error.details() or "").lower()
    return any(d in details for d in _LOST_DETAILS)


class _Route:
    """One target: its channel, stubs, and when a call last found it down (None: not down)."""

    def __init__(self, target, services, snowflake_services, channel_options):
        self.target = target
        self.channel = grpc.insecure_channel(target, options=channel_options)
        self.stub = services.LeafServiceStub(self.channel)
        self.sf_stub = snowflake_services.SnowflakeServiceStub(self.channel)
        self.down_since = None


class LeafClient:
    """Each method is one RPC with the client's deadline (seconds).

    ``target`` is one server's ``host:port``, or a list of them in order of preference (this
    region's first): a call goes to the first target not marked down. One that answers
    UNAVAILABLE (refused, connection lost, shutting down), loses its connection under the call
    (``connection_lost``), or is silent for ``failover_after``
    seconds while another target remains, is marked down and the call moves to the next within
    its deadline (a repeated ID call is a gap). A target marked down is tried last until
    ``retry_preferred_after`` seconds have passed on ``clock``, then first again: calls move back
    once it answers. ``create_tag``, ``set_format`` and ``set_ordering`` never move: they write
    the tag's definition into the first target's database. The rules of the Java LeafClient.

    ``token`` is sent as ``authorization: Bearer <token>`` on every call: the server's
    ``--admin-token`` (CreateTag, UpdateStep) or its ``--client-token``.

    ``channel_options`` go to ``grpc.insecure_channel``: ``[("grpc.lb_policy_name",
    "round_robin")]`` with a ``dns:///`` target spreads calls over every address the name has
    (a Kubernetes headless Service's pods).

    ``call_owners=True`` (off by default): once an answer or error of ``next_id``, ``next_ids``,
    ``next_formatted_id`` or ``next_formatted_ids`` names a STRICT tag's owner (the
    ``leaf-owner`` header, ``HOST:PORT`` only), those calls on the tag go to the owner first,
    with the token, so only for servers whose advertised addresses you trust. An owner that does
    not answer within ``failover_after`` is passed over for ``retry_preferred_after`` and the
    call goes on to the targets (``leaf_owners.OwnerRoutes``). ``next_sequence`` never does.
    """

    def __init__(self, target, messages, services, deadline=10.0, token=None,
                 failover_after=2.0, retry_preferred_after=30.0, clock=time.monotonic,
                 channel_options=(), call_owners=False):
        targets = [target] if isinstance(target, str) else list(target)
        if not targets:
            raise ValueError("targets must not be empty")
        self._pb = messages
        # Generated beside the messages by generate_stubs.
        self._sf = importlib.import_module("leaf.v1.snowflake_pb2")
        sf_services = importlib.import_module("leaf.v1.snowflake_pb2_grpc")
        self._routes = [_Route(t, services, sf_services, list(channel_options))
                        for t in targets]
        self._deadline = deadline
        self._failover_after = failover_after
        self._retry_preferred_after = retry_preferred_after
        self._clock = clock
        self._metadata = (("authorization", "Bearer " + token),) if token else None
        options = list(channel_options)
        self._owners = OwnerRoutes(
            lambda address: _Route(address, services, sf_services, options),
            retry_preferred_after, clock) if call_owners else None

    def wait_for_ready(self, timeout):
        """Waits until the first target's channel is connected."""
        grpc.channel_ready_future(self._routes[0].channel).result(timeout=timeout)

    def _order(self):
        """The routes in the order a call tries them: those not marked down first."""
        now = self._clock()

        def up(route):
            return (route.down_since is None
                    or now - route.down_since >= self._retry_preferred_after)
        return ([r for r in self._routes if up(r)] + [r for r in self._routes if not up(r)])

    def current_target(self):
        """The target a call would try first now."""
        return self._order()[0].target

    def _call(self, invoke, failover=True, tag=None):
        """Runs ``invoke(route, timeout)`` on the preferred target, moving on as the class says;
        ``tag``'s owner first, when one was named (``call_owners``)."""
        start = time.monotonic()
        last = None
        owner = (self._owners.owner_of(tag)
                 if failover and tag is not None and self._owners is not None else None)
        if owner is not None:
            left = self._deadline
            bound = min(left, self._failover_after)
            try:
                return invoke(owner, bound)
            except grpc.RpcError as e:
                # As for a target: silent past the bound counts only when time is left.
                down = (connection_lost(e)
                        or e.code() == grpc.StatusCode.DEADLINE_EXCEEDED and bound < left)
                if not down:
                    raise
                self._owners.unreachable(tag, owner.target)
                last = e
        order = self._order() if failover else self._routes[:1]
        for k, route in enumerate(order):
            left = self._deadline - (time.monotonic() - start)
            if left <= 0:
                break
            another = failover and k + 1 < len(order)
            bound = min(left, self._failover_after) if another else left
            try:
                result = invoke(route, bound)
                route.down_since = None
                return result
            except grpc.RpcError as e:
                code = e.code()
                # A lost connection loses at most the answer: a gap, never a repeat.
                down = (connection_lost(e)
                        or code == grpc.StatusCode.DEADLINE_EXCEEDED and bound < left)
                if not down:
                    raise
                route.down_since = self._clock()
                last = e
                if not another:
                    break
        if last is None:
            raise _DeadlinePassed("deadline of %s s passed before a target answered"
                                  % self._deadline)
        raise last

    def _unary(self, method, request, failover=True, snowflake=False, owned=False):
        """One RPC. ``owned``: it issues IDs of ``request.biz_tag``, whose owner goes first and
        is heard from its answers (``call_owners``)."""
        tag = request.biz_tag if owned and self._owners is not None else None
        if tag is None:
            return self._call(lambda route, timeout: getattr(
                route.sf_stub if snowflake else route.stub, method)(
                    request, timeout=timeout, metadata=self._metadata), failover)

        def invoke(route, timeout):
            try:
                response, call = getattr(route.stub, method).with_call(
                    request, timeout=timeout, metadata=self._metadata)
            except grpc.RpcError as e:
                self._owners.hear(tag, e)
                raise
            self._owners.hear(tag, call)
            return response
        return self._call(invoke, failover, tag)

    def _stream(self, method, request, field, snowflake=False, owned=False):
        """Every element of ``field`` of each message of a server stream, in the order sent;
        ``owned`` as for ``_unary``."""
        tag = request.biz_tag if owned and self._owners is not None else None

        def read(route, timeout):
            out = []
            stub = route.sf_stub if snowflake else route.stub
            responses = getattr(stub, method)(request, timeout=timeout, metadata=self._metadata)
            try:
                for message in responses:
                    out.extend(getattr(message, field))
            except grpc.RpcError as e:
                if tag is not None:
                    self._owners.hear(tag, e)
                raise
            if tag is not None:
                self._owners.hear(tag, responses)
            return out
        return self._call(read, True, tag)

    def create_tag(self, biz_tag, max_id=0, step=0, description="", id_format=None,
                   ordering=None):
        """Creates a tag; max_id and step 0 mean the server's defaults (1 and 200). ``id_format``
        (an ``IdFormat``) makes its numbers formatted strings. ``ordering``: "PER_SERVER" (the
        default), "STRICT" or "SCATTERED"; those two return after the server's
        ``--tag-lease-ttl``."""
        request = self._pb.CreateTagRequest(
            biz_tag=biz_tag, max_id=max_id, step=step, description=description)
        if id_format is not None:
            request.format.CopyFrom(self._id_format(id_format))
        if ordering is not None:
            request.ordering = self._pb.Ordering.Value(ordering)
        return self._unary("CreateTag", request, failover=False)

    def set_ordering(self, biz_tag, ordering):
        """Sets the tag's ordering, "PER_SERVER" or "STRICT" (admin token; to or from
        "SCATTERED" is FAILED_PRECONDITION); returns the tag once every server's knowledge of
        the former ordering has expired (``--tag-lease-ttl``). Always on the first target."""
        return self._unary("SetOrdering", self._pb.SetOrderingRequest(
            biz_tag=biz_tag, ordering=self._pb.Ordering.Value(ordering)), failover=False)

    def next_sequence(self, biz_tag, key):
        """The next value of ``key``'s own sequence on a STRICT tag: from 1, strictly increasing
        in real time across servers (gaps allowed); ``key`` 1-128 bytes of UTF-8. NOT_FOUND for
        an unknown tag, FAILED_PRECONDITION on a tag that is not STRICT, UNAVAILABLE ("retry")
        while the tag's owner takes it over. Always to the targets, even with ``call_owners``: a
        sequence's keys may be served by several servers."""
        return self._unary("NextSequence", self._pb.NextSequenceRequest(
            biz_tag=biz_tag, key=key)).value

    def decode_scattered_id(self, biz_tag, scattered_id):
        """The sequence value an ID of the SCATTERED tag was made from (what WhoIssued takes).
        NOT_FOUND for an unknown tag, FAILED_PRECONDITION on a tag that is not SCATTERED,
        INVALID_ARGUMENT for an ID that is not positive."""
        return self._unary("DecodeScatteredId", self._pb.DecodeScatteredIdRequest(
            biz_tag=biz_tag, id=scattered_id)).sequence

    def _id_format(self, id_format):
        return self._pb.IdFormat(pattern=id_format.pattern,
                                 reset=self._pb.Reset.Value(id_format.reset),
                                 time_zone=id_format.time_zone)

    def set_format(self, biz_tag, id_format):
        """Sets or changes the tag's format (an ``IdFormat``; admin token); returns the tag.
        Always on the first target, as ``create_tag``."""
        return self._unary("SetFormat", self._pb.SetFormatRequest(
            biz_tag=biz_tag, format=self._id_format(id_format)), failover=False)

    def next_formatted_id(self, biz_tag):
        """The tag's next formatted number (FAILED_PRECONDITION when the tag has no format)."""
        return self._unary("NextFormattedId", self._pb.NextIdRequest(biz_tag=biz_tag),
                           owned=True).value

    def next_formatted_ids(self, biz_tag, count, chunk_size=0):
        """``count`` formatted numbers from one NextFormattedIdBatch stream, in the order sent."""
        return self._stream("NextFormattedIdBatch", self._pb.NextIdBatchRequest(
            biz_tag=biz_tag, count=count, chunk_size=chunk_size), "values", owned=True)

    def parse_formatted_id(self, biz_tag, value):
        """A ``FormattedIdParts`` of one of the tag's numbers (INVALID_ARGUMENT if it does not
        match the tag's format)."""
        p = self._unary("ParseFormattedId", self._pb.ParseFormattedIdRequest(
            biz_tag=biz_tag, value=value))
        return FormattedIdParts(p.period, None if p.sequence < 0 else p.sequence, p.check_valid)

    def next_id(self, biz_tag):
        """One ID."""
        return self._unary("NextId", self._pb.NextIdRequest(biz_tag=biz_tag), owned=True).id

    def next_ids(self, biz_tag, count, chunk_size=0):
        """``count`` IDs from one NextIdBatch stream, in the order sent (increasing)."""
        return self._stream("NextIdBatch", self._pb.NextIdBatchRequest(
            biz_tag=biz_tag, count=count, chunk_size=chunk_size), "ids", owned=True)

    def reserve_ids(self, biz_tag, count):
        """``count`` IDs as at most 3 ascending, disjoint ``range(start, end)`` the caller owns."""
        reply = self._unary("ReserveIds", self._pb.ReserveIdsRequest(biz_tag=biz_tag, count=count))
        return [range(r.start, r.end) for r in reply.ranges]

    def next_snowflake_id(self):
        """One snowflake ID (time-ordered, no tag)."""
        return self._unary("NextSnowflakeId", self._sf.NextSnowflakeIdRequest(),
                           snowflake=True).id

    def next_snowflake_ids(self, count, chunk_size=0):
        """``count`` snowflake IDs from one NextSnowflakeIdBatch stream, increasing."""
        return self._stream("NextSnowflakeIdBatch", self._sf.NextSnowflakeIdBatchRequest(
            count=count, chunk_size=chunk_size), "ids", snowflake=True)

    def decode_snowflake_id(self, snowflake_id):
        """The parts of an ID: ``timestamp_ms``, ``worker_id``, ``sequence``."""
        return self._unary("DecodeSnowflakeId",
                           self._sf.DecodeSnowflakeIdRequest(id=snowflake_id), snowflake=True)

    def next_uuid(self):
        """One version 7 UUID (RFC 9562): a message with ``value`` (canonical lower case) and
        ``ulid`` (the same bits in Crockford base32); time-ordered, never shared by two servers."""
        return self._unary("NextUuid", self._sf.NextUuidRequest(), snowflake=True)

    def next_uuids(self, count, chunk_size=0):
        """``count`` UUIDs (canonical strings) from one NextUuidBatch stream, increasing."""
        return self._stream("NextUuidBatch", self._sf.NextUuidBatchRequest(
            count=count, chunk_size=chunk_size), "values", snowflake=True)

    def decode_uuid(self, value):
        """The ``timestamp_ms`` and ``worker_id`` of a UUID the server made (either form)."""
        return self._unary("DecodeUuid", self._sf.DecodeUuidRequest(value=value),
                           snowflake=True)

    def get_worker(self):
        """The server's worker lease and layout (``worker_id`` -1 while it holds none)."""
        return self._unary("GetWorker", self._sf.GetWorkerRequest(), snowflake=True)

    def close(self):
        if self._owners is not None:
            self._owners.close()
        for route in self._routes:
            route.channel.close()


class _DeadlinePassed(grpc.RpcError):
    """The call's deadline passed before any target was tried: DEADLINE_EXCEEDED."""

    def __init__(self, details):
        super().__init__(details)
        self._details = details

    def code(self):
        return grpc.StatusCode.DEADLINE_EXCEEDED

    def details(self):
        return self._details
