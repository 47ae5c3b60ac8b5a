"""Starts the packaged server (server/target/leaf-server.jar) on a free port with an H2 database
in a temporary directory, and checks the Python client against it.

Run from the repository: /usr/bin/python3 -m unittest discover -s examples/python -v
"""
import datetime
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import grpc

from leaf_client import REPO, FormattedIdParts, IdFormat, LeafClient, generate_stubs

JAR = os.path.join(REPO, "server", "target", "leaf-server.jar")
ADMIN_TOKEN = "py-admin-token"
# The AES key of opaque formatted numbers (--format-key-file): 32 hex digits, AES-128.
FORMAT_KEY = "0f0e0d0c0b0a09080706050403020100"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_listening(log_path, port, server, timeout):
    """Waits for the server's "listening" line: its port opens before the start-up checks pass,
    and calls made before then are held (a loaded machine can hold them past their deadline)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if server.poll() is not None:
            raise RuntimeError("server exited with %s" % server.returncode)
        with open(log_path) as log:
            if "Leaf listening on port" in log.read():
                return
        time.sleep(0.2)
    raise RuntimeError("no listening line on port %d after %d s" % (port, timeout))


class PackagedServer:
    """The packaged server on a free port with an H2 database in ``directory``; stop() ends it."""

    def __init__(self, directory, args):
        self.port = free_port()
        self.target = "127.0.0.1:%d" % self.port
        log_path = os.path.join(directory, "server-%d.log" % self.port)
        self.log = open(log_path, "w")
        self.process = subprocess.Popen(
            ["java", "-jar", JAR, "--port", str(self.port),
             "--db-url", "jdbc:h2:file:%s;MODE=MySQL" % os.path.join(directory, "leaf")] + args,
            stdout=self.log, stderr=subprocess.STDOUT)
        try:
            wait_for_listening(log_path, self.port, self.process, 90)
        except Exception:
            self.stop()
            raise

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                # A server that ignores SIGTERM is killed, so the run never hangs on it.
                self.process.kill()
                self.process.wait(timeout=15)
        self.log.close()


class LeafClientTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(JAR):
            raise unittest.SkipTest(JAR + " is missing: build it first with \"make build\"")
        cls.tmp = tempfile.mkdtemp(prefix="leaf-python-")
        messages, services = generate_stubs(cls.tmp)
        key_file = os.path.join(cls.tmp, "format.key")
        with open(key_file, "w") as f:
            f.write(FORMAT_KEY + "\n")
        cls.server = None
        try:
            cls.server = PackagedServer(cls.tmp, [
                "--admin-token", ADMIN_TOKEN, "--format-key-file", key_file,
                # A claimed worker ID issues after the lease TTL plus 1 s: keep the wait short.
                "--worker-lease-ttl", "1s",
                # CreateTag with STRICT or SCATTERED, and SetOrdering, return after this TTL.
                "--tag-lease-ttl", "1s"])
            cls.target = cls.server.target
            cls.stubs = (messages, services)
            cls.client = LeafClient(cls.target, messages, services, token=ADMIN_TOKEN)
            cls.client.wait_for_ready(10)
        except Exception:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "client", None):
            cls.client.close()
        if cls.server:
            cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def assert_status(self, code, call):
        with self.assertRaises(grpc.RpcError) as caught:
            call()
        self.assertEqual(code, caught.exception.code(), caught.exception.details())
        return caught.exception

    def test_nextId_newTag_oneTwoThree(self):
        self.client.create_tag("py-seq")
        ids = [self.client.next_id("py-seq") for _ in range(3)]
        self.assertEqual([1, 2, 3], ids, "the defaults start at 1")

    def test_nextIds_spanningSegments_countIncreasing(self):
        self.client.create_tag("py-batch", step=7)
        ids = self.client.next_ids("py-batch", 2500, 1000)
        self.assertEqual(2500, len(ids), "2500 IDs across segments")
        self.assertEqual(1, ids[0], "the first ID of the tag")
        # Segments loaded side by side may land out of order: a gap, never a repeat or a step back.
        self.assertTrue(all(a < b for a, b in zip(ids, ids[1:])), "increasing")

    def test_nextId_pastTwoTo53_keepsEveryDigit(self):
        start = 2 ** 60
        self.client.create_tag("py-big", max_id=start, step=10)
        self.assertEqual(start, self.client.next_id("py-big"))

    def test_reserveIds_largeCount_atMostThreeAscendingDisjointRanges(self):
        self.client.create_tag("py-reserve", step=100)
        first = self.client.reserve_ids("py-reserve", 30)
        self.assertEqual([range(1, 31)], first, "from the current segment")
        ranges = self.client.reserve_ids("py-reserve", 100000)
        self.assertTrue(1 <= len(ranges) <= 3, "1 to 3 ranges: %r" % ranges)
        last_end = 31
        for r in ranges:
            self.assertTrue(r.start >= last_end and len(r) > 0,
                            "ascending, disjoint: %r" % ranges)
            last_end = r.stop
        self.assertEqual(100000, sum(len(r) for r in ranges), "exact count")
        later = self.client.next_ids("py-reserve", 500)
        self.assertFalse(any(any(i in r for r in ranges) for i in later),
                         "no later ID inside a reserved range")

    def test_errors_statusCodes(self):
        self.assert_status(grpc.StatusCode.NOT_FOUND, lambda: self.client.next_id("py-ghost"))
        self.client.create_tag("py-twice")
        self.assert_status(grpc.StatusCode.ALREADY_EXISTS,
                           lambda: self.client.create_tag("py-twice"))
        e = self.assert_status(grpc.StatusCode.INVALID_ARGUMENT,
                               lambda: self.client.reserve_ids("py-twice", 0))
        self.assertIn("count", e.details())
        self.assert_status(grpc.StatusCode.NOT_FOUND,
                           lambda: self.client.reserve_ids("py-ghost", 5))

    def test_adminToken_missingOrWrong_refusedAndIdRpcsStayOpen(self):
        anonymous = LeafClient(self.target, *self.stubs)
        wrong = LeafClient(self.target, *self.stubs, token="not-the-token")
        try:
            self.assert_status(grpc.StatusCode.UNAUTHENTICATED,
                               lambda: anonymous.create_tag("py-guarded"))
            self.assert_status(grpc.StatusCode.PERMISSION_DENIED,
                               lambda: wrong.create_tag("py-guarded"))
            self.client.create_tag("py-guarded")
            self.assertEqual(1, anonymous.next_id("py-guarded"),
                             "ID RPCs need no token without --client-token")
        finally:
            anonymous.close()
            wrong.close()

    def test_snowflake_unaryAndBatch_increaseAndDecodeToThisWorker(self):
        worker = self.client.get_worker()
        for _ in range(200):
            if worker.worker_id >= 0:
                break
            time.sleep(0.05)
            worker = self.client.get_worker()
        self.assertGreaterEqual(worker.worker_id, 0, "the server leased a worker ID")
        self.assertEqual(41, worker.timestamp_bits)
        first = self.client.next_snowflake_id()
        batch = self.client.next_snowflake_ids(5000, chunk_size=1000)
        self.assertEqual(5000, len(batch))
        self.assertEqual(sorted(set(batch)), batch, "unique and increasing")
        self.assertLess(first, batch[0], "after the unary ID")
        parts = self.client.decode_snowflake_id(first)
        self.assertEqual(worker.worker_id, parts.worker_id)
        self.assertLess(abs(parts.timestamp_ms - time.time() * 1000), 60000, "issued now")
        self.assert_status(grpc.StatusCode.INVALID_ARGUMENT,
                           lambda: self.client.decode_snowflake_id(-1))
        a = self.client.next_uuid()
        b = self.client.next_uuid()
        self.assertRegex(a.value, r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                                  r"[0-9a-f]{12}$")
        self.assertEqual(26, len(a.ulid))
        self.assertLess(a.value, b.value, "increasing")
        self.assertLess(a.ulid, b.ulid, "ULIDs too")
        self.assertEqual(worker.worker_id, self.client.decode_uuid(b.ulid).worker_id)

    def test_nextUuids_batch_countIncreasingOfThisWorker(self):
        worker = self.client.get_worker()
        values = self.client.next_uuids(2500, chunk_size=1000)
        self.assertEqual(2500, len(values))
        self.assertEqual(sorted(set(values)), values, "unique and increasing")
        self.assertRegex(values[0], r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                                    r"[0-9a-f]{12}$")
        self.assertEqual(worker.worker_id, self.client.decode_uuid(values[-1]).worker_id)
        self.assert_status(grpc.StatusCode.INVALID_ARGUMENT, lambda: self.client.next_uuids(0))

    def while_unavailable(self, call):
        """``call()``, again while it raises UNAVAILABLE for up to 15 s: a STRICT tag's first
        calls meet an owner taking the tag over ("...; retry")."""
        end = time.monotonic() + 15
        while True:
            try:
                return call()
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > end:
                    raise
                time.sleep(0.1)

    def test_nextSequence_strictTag_eachKeyIncreases(self):
        tag = self.client.create_tag("py-strict", ordering="STRICT")
        self.assertEqual(self.stubs[0].STRICT, tag.ordering)

        def nxt(key):
            return self.while_unavailable(lambda: self.client.next_sequence("py-strict", key))
        a1 = nxt("chat-1")
        b1 = nxt("chat-2")
        a2 = nxt("chat-1")
        a3 = nxt("chat-1")
        b2 = nxt("chat-2")
        self.assertGreaterEqual(min(a1, b1), 1, "from 1 on")
        self.assertLess(a1, a2)
        self.assertLess(a2, a3)
        self.assertLess(b1, b2)
        self.client.create_tag("py-per-server")
        self.assert_status(grpc.StatusCode.FAILED_PRECONDITION,
                           lambda: self.client.next_sequence("py-per-server", "chat-1"))
        self.assert_status(grpc.StatusCode.NOT_FOUND,
                           lambda: self.client.next_sequence("py-no-such-tag", "chat-1"))

    def test_setOrdering_toStrict_adminOnlyThenSequences(self):
        self.client.create_tag("py-to-strict")
        messages, services = self.stubs
        anonymous = LeafClient(self.target, messages, services)
        try:
            self.assert_status(grpc.StatusCode.UNAUTHENTICATED,
                               lambda: anonymous.set_ordering("py-to-strict", "STRICT"))
        finally:
            anonymous.close()
        tag = self.client.set_ordering("py-to-strict", "STRICT")
        self.assertEqual(messages.STRICT, tag.ordering)
        self.assertGreaterEqual(
            self.while_unavailable(lambda: self.client.next_sequence("py-to-strict", "k")), 1)
        self.assert_status(grpc.StatusCode.FAILED_PRECONDITION,
                           lambda: self.client.set_ordering("py-to-strict", "SCATTERED"))

    def test_decodeScatteredId_scatteredTag_readsBackTheSequenceInOrder(self):
        tag = self.client.create_tag("py-scattered", step=50, ordering="SCATTERED")
        self.assertEqual(self.stubs[0].SCATTERED, tag.ordering)
        ids = self.client.next_ids("py-scattered", 120, chunk_size=50)
        self.assertEqual(120, len(set(ids)))
        self.assertTrue(all(i > 0 for i in ids), "positive")
        self.assertNotEqual(sorted(ids), ids, "not increasing")
        # In the order issued, the sequence behind the scattered values increases from 1 (with
        # gaps where a segment went unused, which the contract allows).
        sequences = [self.client.decode_scattered_id("py-scattered", i) for i in ids]
        self.assertEqual(1, sequences[0])
        self.assertTrue(all(b > a for a, b in zip(sequences, sequences[1:])), sequences)
        self.assert_status(grpc.StatusCode.INVALID_ARGUMENT,
                           lambda: self.client.decode_scattered_id("py-scattered", 0))
        self.client.create_tag("py-plain")
        self.assert_status(grpc.StatusCode.FAILED_PRECONDITION,
                           lambda: self.client.decode_scattered_id("py-plain", ids[0]))
        self.assert_status(grpc.StatusCode.NOT_FOUND,
                           lambda: self.client.decode_scattered_id("py-no-such-tag", ids[0]))

    def test_formattedIds_createdWithFormat_numbersAndParse(self):
        tag = self.client.create_tag("py-fmt", step=10, id_format=IdFormat("P-{seq:6}"))
        self.assertEqual("P-{seq:6}", tag.format.pattern)
        first = self.client.next_formatted_id("py-fmt")
        second = self.client.next_formatted_id("py-fmt")
        self.assertRegex(first, r"^P-\d{6}$")
        self.assertGreater(second, first)
        self.assertEqual(FormattedIdParts("", int(second[2:]), True),
                         self.client.parse_formatted_id("py-fmt", second))

    def test_formattedIds_dailyFormat_todayInUtcAndItsPeriod(self):
        before = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d")
        tag = self.client.create_tag("py-fmt-daily")
        self.assertFalse(tag.HasField("format"), "a tag created without a format has none")
        tag = self.client.set_format("py-fmt-daily",
                                     IdFormat("D-{yyyyMMdd}-{seq:4}", "DAILY", "UTC"))
        self.assertEqual("DAILY", self.stubs[0].Reset.Name(tag.format.reset))
        value = self.client.next_formatted_id("py-fmt-daily")
        after = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d")
        m = re.match(r"^D-(\d{8})-(\d{4})$", value)
        self.assertTrue(m, value)
        self.assertIn(m.group(1), (before, after), "today in UTC")
        parts = self.client.parse_formatted_id("py-fmt-daily", value)
        self.assertEqual(m.group(1), parts.period, "the period of a daily reset is its day")
        self.assertEqual(int(m.group(2)), parts.sequence)

    def test_formattedIds_batch_countUniqueIncreasing(self):
        self.client.create_tag("py-fmt-batch", step=7, id_format=IdFormat("B-{seq:8}"))
        values = self.client.next_formatted_ids("py-fmt-batch", 2500, 1000)
        self.assertEqual(2500, len(values))
        self.assertTrue(all(re.match(r"^B-\d{8}$", v) for v in values), values[:3])
        self.assertEqual(sorted(set(values)), values, "unique and increasing")

    def test_formattedIds_opaque_sequenceForTheAdminTokenOnly(self):
        anonymous = LeafClient(self.target, *self.stubs)
        try:
            self.client.create_tag("py-fmt-opaque", id_format=IdFormat("Q-{seq:8:opaque}"))
            values = self.client.next_formatted_ids("py-fmt-opaque", 50)
            self.assertEqual(50, len(set(values)), "unique")
            admin = self.client.parse_formatted_id("py-fmt-opaque", values[0])
            self.assertIsNotNone(admin.sequence, "the admin token sees the sequence")
            hidden = anonymous.parse_formatted_id("py-fmt-opaque", values[0])
            self.assertIsNone(hidden.sequence, "no sequence without the admin token")
        finally:
            anonymous.close()

    def test_formattedIds_errors_statusCodes(self):
        self.client.create_tag("py-fmt-none")
        e = self.assert_status(grpc.StatusCode.FAILED_PRECONDITION,
                               lambda: self.client.next_formatted_id("py-fmt-none"))
        self.assertIn("py-fmt-none", e.details())
        self.assert_status(grpc.StatusCode.INVALID_ARGUMENT,
                           lambda: self.client.set_format("py-fmt-none",
                                                          IdFormat("M-{yyyyMM}-{seq:4}", "DAILY")))
        self.client.create_tag("py-fmt-luhn", id_format=IdFormat("L{seq:6}{check:luhn}"))
        value = self.client.next_formatted_id("py-fmt-luhn")
        self.assertTrue(self.client.parse_formatted_id("py-fmt-luhn", value).check_valid)
        wrong = value[:-1] + str((int(value[-1]) + 1) % 10)
        self.assertFalse(self.client.parse_formatted_id("py-fmt-luhn", wrong).check_valid, wrong)
        self.assert_status(grpc.StatusCode.INVALID_ARGUMENT,
                           lambda: self.client.parse_formatted_id("py-fmt-luhn", "nope"))
        self.client.create_tag("py-fmt-narrow", id_format=IdFormat("W{seq:1}"))
        issued = 0
        with self.assertRaises(grpc.RpcError) as caught:
            for _ in range(20):
                self.client.next_formatted_id("py-fmt-narrow")
                issued += 1
        self.assertEqual(grpc.StatusCode.OUT_OF_RANGE, caught.exception.code(),
                         caught.exception.details())
        self.assertIn("py-fmt-narrow", caught.exception.details())
        self.assertTrue(1 <= issued <= 10, "one-digit numbers before it: %d" % issued)
        anonymous = LeafClient(self.target, *self.stubs)
        try:
            self.assert_status(grpc.StatusCode.UNAUTHENTICATED,
                               lambda: anonymous.set_format("py-fmt-none", IdFormat("G-{seq:4}")))
        finally:
            anonymous.close()


class TcpProxy:
    """Forwards 127.0.0.1:<port> to ``target_port``; stop() refuses and drops every connection,
    start() listens on the same port again."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.port = 0
        self.listener = None
        self.sockets = set()
        self.lock = threading.Lock()

    @property
    def target(self):
        return "127.0.0.1:%d" % self.port

    def start(self):
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener):
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # stopped
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self.lock:
                self.sockets.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass  # one side was closed, or stop() dropped it
        finally:
            for s in (source, sink):
                self._drop(s)

    def _drop(self, s):
        with self.lock:
            self.sockets.discard(s)
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()

    def stop(self):
        # shutdown() wakes the thread blocked in accept(); close() alone leaves it listening.
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()
        with self.lock:
            dropped = list(self.sockets)
        for s in dropped:
            self._drop(s)


class FailoverTest(unittest.TestCase):
    """A client of several targets against two packaged servers, region 0/2 and region 1/2 (each
    ID tells which answered: region 1's lie at 2**62 and up). Region 0's server is reached through
    a proxy the test stops and starts; the client's clock is moved by the test alone."""

    SHARE = 2 ** 62
    TAG = "py-regions"
    RETRY_PREFERRED_AFTER = 30.0

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(JAR):
            raise unittest.SkipTest(JAR + " is missing: build it first with \"make build\"")
        cls.tmp = tempfile.mkdtemp(prefix="leaf-python-failover-")
        cls.stubs = generate_stubs(cls.tmp)
        cls.regions = []
        cls.now = 0.0
        try:
            for region in ("0/2", "1/2"):
                directory = os.path.join(cls.tmp, region.replace("/", "-of-"))
                os.mkdir(directory)
                cls.regions.append(PackagedServer(directory, ["--region", region]))
            for server in cls.regions:
                direct = LeafClient(server.target, *cls.stubs)
                direct.wait_for_ready(10)
                direct.create_tag(cls.TAG, step=100)
                direct.close()
            cls.proxy = TcpProxy(cls.regions[0].port)
            cls.proxy.start()
            cls.client = LeafClient([cls.proxy.target, cls.regions[1].target], *cls.stubs,
                                    deadline=8.0, failover_after=1.0,
                                    retry_preferred_after=cls.RETRY_PREFERRED_AFTER,
                                    clock=lambda: cls.now)
        except Exception:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "client", None):
            cls.client.close()
        for server in cls.regions:
            server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def region(self, id_):
        return 0 if id_ < self.SHARE else 1

    def test_failover_firstDownThenBack_callsMoveAndReturn(self):
        client = self.client
        self.assertEqual(0, self.region(client.next_id(self.TAG)), "the first target answers")
        self.assertEqual({0}, {self.region(i) for i in client.next_ids(self.TAG, 30)})

        self.proxy.stop()
        self.assertEqual(1, self.region(client.next_id(self.TAG)), "NextId via region 1")
        ids = client.next_ids(self.TAG, 50, 20)
        self.assertEqual(50, len(ids))
        self.assertEqual({1}, {self.region(i) for i in ids}, "NextIdBatch via region 1")
        for r in client.reserve_ids(self.TAG, 200):
            self.assertEqual(1, self.region(r.start), "ReserveIds range %r of region 1" % r)
        self.assertEqual(self.regions[1].target, client.current_target())
        for write in (lambda: client.create_tag("py-elsewhere"),
                      lambda: client.set_format(self.TAG, IdFormat("P-{seq:9}"))):
            with self.assertRaises(grpc.RpcError) as caught:
                write()
            self.assertEqual(grpc.StatusCode.UNAVAILABLE, caught.exception.code(),
                             "CreateTag and SetFormat stay on the first target")

        self.proxy.start()
        self.assertEqual(1, self.region(client.next_id(self.TAG)),
                         "still passed over: the clock has not moved")
        # Each round moves the clock past the mark; the channel may still wait out its
        # reconnect backoff.
        back = False
        end = time.monotonic() + 20
        while not back and time.monotonic() < end:
            type(self).now += self.RETRY_PREFERRED_AFTER
            back = self.region(client.next_id(self.TAG)) == 0
            if not back:
                time.sleep(0.2)
        self.assertTrue(back, "calls went back to region 0 once it answered")
        self.assertEqual(self.proxy.target, client.current_target())

    def test_failover_silentTarget_movesOnAfterFailoverAfter(self):
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # accepts connections (the kernel does) and never answers
        client = LeafClient(["127.0.0.1:%d" % silent.getsockname()[1], self.regions[1].target],
                            *self.stubs, deadline=8.0, failover_after=0.5)
        try:
            start = time.monotonic()
            id_ = client.next_id(self.TAG)
            took = time.monotonic() - start
            self.assertEqual(1, self.region(id_), "answered by the second target")
            self.assertTrue(0.4 <= took < 8.0, "moved after waiting for the first: %.2f s" % took)
            self.assertEqual(1, self.region(client.next_id(self.TAG)),
                             "the next call goes straight to the second")
        finally:
            client.close()
            silent.close()


if __name__ == "__main__":
    unittest.main()
