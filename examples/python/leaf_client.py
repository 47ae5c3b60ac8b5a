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

import grpc

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


class LeafClient:
    """Each method is one RPC with the client's deadline (seconds).

    ``token`` is sent as ``authorization: Bearer <token>`` on every call: the server's
    ``--admin-token`` (CreateTag, UpdateStep) or its ``--client-token``.
    """

    def __init__(self, target, messages, services, deadline=10.0, token=None):
        self._pb = messages
        self._channel = grpc.insecure_channel(target)
        self._stub = services.LeafServiceStub(self._channel)
        # Generated beside the messages by generate_stubs.
        self._sf = importlib.import_module("leaf.v1.snowflake_pb2")
        self._sf_stub = importlib.import_module("leaf.v1.snowflake_pb2_grpc").SnowflakeServiceStub(
            self._channel)
        self._deadline = deadline
        self._metadata = (("authorization", "Bearer " + token),) if token else None

    def wait_for_ready(self, timeout):
        grpc.channel_ready_future(self._channel).result(timeout=timeout)

    def create_tag(self, biz_tag, max_id=0, step=0, description="", id_format=None):
        """Creates a tag; max_id and step 0 mean the server's defaults (1 and 200). ``id_format``
        (an ``IdFormat``) makes its numbers formatted strings."""
        request = self._pb.CreateTagRequest(
            biz_tag=biz_tag, max_id=max_id, step=step, description=description)
        if id_format is not None:
            request.format.CopyFrom(self._id_format(id_format))
        return self._stub.CreateTag(request, timeout=self._deadline, metadata=self._metadata)

    def _id_format(self, id_format):
        return self._pb.IdFormat(pattern=id_format.pattern,
                                 reset=self._pb.Reset.Value(id_format.reset),
                                 time_zone=id_format.time_zone)

    def set_format(self, biz_tag, id_format):
        """Sets or changes the tag's format (an ``IdFormat``; admin token); returns the tag."""
        return self._stub.SetFormat(self._pb.SetFormatRequest(
            biz_tag=biz_tag, format=self._id_format(id_format)),
            timeout=self._deadline, metadata=self._metadata)

    def next_formatted_id(self, biz_tag):
        """The tag's next formatted number (FAILED_PRECONDITION when the tag has no format)."""
        return self._stub.NextFormattedId(self._pb.NextIdRequest(biz_tag=biz_tag),
                                          timeout=self._deadline, metadata=self._metadata).value

    def next_formatted_ids(self, biz_tag, count, chunk_size=0):
        """``count`` formatted numbers from one NextFormattedIdBatch stream, in the order sent."""
        values = []
        for batch in self._stub.NextFormattedIdBatch(self._pb.NextIdBatchRequest(
                biz_tag=biz_tag, count=count, chunk_size=chunk_size), timeout=self._deadline,
                metadata=self._metadata):
            values.extend(batch.values)
        return values

    def parse_formatted_id(self, biz_tag, value):
        """A ``FormattedIdParts`` of one of the tag's numbers (INVALID_ARGUMENT if it does not
        match the tag's format)."""
        p = self._stub.ParseFormattedId(self._pb.ParseFormattedIdRequest(
            biz_tag=biz_tag, value=value), timeout=self._deadline, metadata=self._metadata)
        return FormattedIdParts(p.period, None if p.sequence < 0 else p.sequence, p.check_valid)

    def next_id(self, biz_tag):
        """One ID."""
        return self._stub.NextId(self._pb.NextIdRequest(biz_tag=biz_tag),
                                 timeout=self._deadline, metadata=self._metadata).id

    def next_ids(self, biz_tag, count, chunk_size=0):
        """``count`` IDs from one NextIdBatch stream, in the order sent (increasing)."""
        ids = []
        for batch in self._stub.NextIdBatch(self._pb.NextIdBatchRequest(
                biz_tag=biz_tag, count=count, chunk_size=chunk_size), timeout=self._deadline,
                metadata=self._metadata):
            ids.extend(batch.ids)
        return ids

    def reserve_ids(self, biz_tag, count):
        """``count`` IDs as at most 3 ascending, disjoint ``range(start, end)`` the caller owns."""
        reply = self._stub.ReserveIds(self._pb.ReserveIdsRequest(biz_tag=biz_tag, count=count),
                                      timeout=self._deadline, metadata=self._metadata)
        return [range(r.start, r.end) for r in reply.ranges]

    def next_snowflake_id(self):
        """One snowflake ID (time-ordered, no tag)."""
        return self._sf_stub.NextSnowflakeId(self._sf.NextSnowflakeIdRequest(),
                                             timeout=self._deadline, metadata=self._metadata).id

    def next_snowflake_ids(self, count, chunk_size=0):
        """``count`` snowflake IDs from one NextSnowflakeIdBatch stream, increasing."""
        ids = []
        for batch in self._sf_stub.NextSnowflakeIdBatch(self._sf.NextSnowflakeIdBatchRequest(
                count=count, chunk_size=chunk_size), timeout=self._deadline,
                metadata=self._metadata):
            ids.extend(batch.ids)
        return ids

    def decode_snowflake_id(self, snowflake_id):
        """The parts of an ID: ``timestamp_ms``, ``worker_id``, ``sequence``."""
        return self._sf_stub.DecodeSnowflakeId(self._sf.DecodeSnowflakeIdRequest(id=snowflake_id),
                                               timeout=self._deadline, metadata=self._metadata)

    def get_worker(self):
        """The server's worker lease and layout (``worker_id`` -1 while it holds none)."""
        return self._sf_stub.GetWorker(self._sf.GetWorkerRequest(), timeout=self._deadline,
                                       metadata=self._metadata)

    def close(self):
        self._channel.close()
