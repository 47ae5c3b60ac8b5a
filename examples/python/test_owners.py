"""call_owners against two fake LeafServices in this process on loopback ports: the one the
client is given names the other as a STRICT tag's owner in the ``leaf-owner`` header. Each fake
hands out its own numbers (the owner's from OWNER_FIRST), so each ID tells who answered.

Run from the repository: /usr/bin/python3 -m unittest discover -s examples/python -v
"""
import shutil
import tempfile
import threading
import unittest
from concurrent import futures

import grpc

from leaf_client import LeafClient, generate_stubs

OWNER_FIRST = 1_000_000


class _FakeLeaf:
    """A LeafService handing out first, first + 1, ... to NextId, NextIdBatch, NextFormattedId
    (F-n), NextFormattedIdBatch and NextSequence alike; it names ``name`` (when set) in the
    leaf-owner header of every answer (in the trailers of an error), counts its calls, answers
    ``failure`` when set and holds calls while ``silent`` (until stopped)."""

    def __init__(self, messages, services):
        self.name = None
        self.failure = None
        self.silent = False
        self.calls = 0
        self._next = 1
        self._lock = threading.Lock()
        self._released = threading.Event()
        pb = messages
        fake = self

        def enter(context):
            with fake._lock:
                fake.calls += 1
            if fake.silent:
                fake._released.wait(10)
            named = (("leaf-owner", fake.name),) if fake.name is not None else ()
            if fake.failure is not None:
                context.set_trailing_metadata(named)
                context.abort(fake.failure, "failed by the test")
            context.send_initial_metadata(named)

        def take(count):
            with fake._lock:
                first = fake._next
                fake._next += count
            return list(range(first, first + count))

        class Servicer(services.LeafServiceServicer):
            def NextId(self, request, context):
                enter(context)
                return pb.NextIdResponse(id=take(1)[0])

            def NextFormattedId(self, request, context):
                enter(context)
                return pb.FormattedId(value="F-%d" % take(1)[0])

            def NextSequence(self, request, context):
                enter(context)
                return pb.Sequence(value=take(1)[0])

            def NextIdBatch(self, request, context):
                enter(context)
                yield pb.IdBatch(ids=take(request.count))

            def NextFormattedIdBatch(self, request, context):
                enter(context)
                yield pb.FormattedIdBatch(values=["F-%d" % n for n in take(request.count)])

        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        services.add_LeafServiceServicer_to_server(Servicer(), self.server)
        self.target = "127.0.0.1:%d" % self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()

    def starting_at(self, first):
        self._next = first
        return self

    def stop(self):
        self._released.set()
        self.server.stop(None)


class OwnersTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="leaf-py-owners-")
        cls.messages, cls.services = generate_stubs(cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.now = 0.0
        self.owner = _FakeLeaf(self.messages, self.services).starting_at(OWNER_FIRST)
        self.given = _FakeLeaf(self.messages, self.services)
        self.given.name = self.owner.target
        self.clients = []

    def tearDown(self):
        for c in self.clients:
            c.close()
        self.given.stop()
        self.owner.stop()

    def client(self, **options):
        settings = dict(deadline=5.0, failover_after=2.0, retry_preferred_after=30.0,
                        clock=lambda: self.now)
        settings.update(options)
        c = LeafClient(self.given.target, self.messages, self.services, **settings)
        self.clients.append(c)
        return c

    def test_callOwners_ownerNamed_idCallsOnTheTagGoToIt(self):
        c = self.client(call_owners=True)
        self.assertEqual(1, c.next_id("t"), "the first call goes to the target, naming the owner")
        self.assertEqual(OWNER_FIRST, c.next_id("t"), "then straight to the owner")
        self.assertEqual([OWNER_FIRST + 1, OWNER_FIRST + 2], c.next_ids("t", 2), "batches too")
        self.assertEqual("F-%d" % (OWNER_FIRST + 3), c.next_formatted_id("t"), "formatted too")
        self.assertEqual(["F-%d" % (OWNER_FIRST + 4)], c.next_formatted_ids("t", 1))
        self.assertEqual(1, self.given.calls, "the target was called once")
        self.assertEqual(2, c.next_id("u"), "another tag goes to the target until named")

    def test_callOwners_batchAnswer_namesTheOwnerToo(self):
        c = self.client(call_owners=True)
        self.assertEqual(["F-1"], c.next_formatted_ids("t", 1))
        self.assertEqual("F-%d" % OWNER_FIRST, c.next_formatted_id("t"))

    def test_callOwners_errorNamingTheOwner_teachesIt(self):
        c = self.client(call_owners=True)
        self.given.failure = grpc.StatusCode.FAILED_PRECONDITION
        with self.assertRaises(grpc.RpcError) as raised:
            c.next_id("t")
        self.assertEqual(grpc.StatusCode.FAILED_PRECONDITION, raised.exception.code())
        self.assertEqual(OWNER_FIRST, c.next_id("t"), "the owner the error named")

    def test_callOwners_nextSequence_goesToTheTargetAndNamesNoOwner(self):
        c = self.client(call_owners=True)
        c.next_id("t")
        self.assertEqual(2, c.next_sequence("t", "k"), "to the target though the owner is known")
        self.assertEqual(0, self.owner.calls, "the owner saw no call")
        self.assertEqual(3, c.next_sequence("u", "k"))
        self.assertEqual(4, c.next_id("u"), "a sequence's answer taught no owner of u")
        self.assertEqual(OWNER_FIRST, c.next_id("u"), "an ID call's answer did")

    def test_byDefault_everyCallToTheTarget(self):
        c = self.client()
        for i in range(1, 4):
            self.assertEqual(i, c.next_id("t"))
        self.assertEqual([4], c.next_ids("t", 1))
        self.assertEqual("F-5", c.next_formatted_id("t"))
        self.assertEqual(0, self.owner.calls, "the owner was never called")

    def test_callOwners_ownerUnavailable_passedOverThenTriedAgain(self):
        c = self.client(call_owners=True)
        c.next_id("t")
        self.owner.failure = grpc.StatusCode.UNAVAILABLE
        self.assertEqual(2, c.next_id("t"), "the same call went on to the target")
        self.assertEqual(1, self.owner.calls)
        self.assertEqual(3, c.next_id("t"), "the owner is passed over")
        self.assertEqual(1, self.owner.calls)

        self.owner.failure = None
        self.now += 30.0
        self.assertEqual(OWNER_FIRST, c.next_id("t"), "the owner, still named, tried again")
        self.assertEqual(3, self.given.calls)

    def test_callOwners_ownerSilentPastFailoverAfter_passedOver(self):
        c = self.client(call_owners=True, failover_after=0.2)
        c.next_id("t")
        self.owner.silent = True
        self.assertEqual(2, c.next_id("t"), "the call went on to the target after the bound")
        self.assertEqual(3, c.next_id("t"), "the owner is passed over")
        self.assertEqual(1, self.owner.calls)

    def test_callOwners_ownersOtherAnswer_stands(self):
        c = self.client(call_owners=True)
        c.next_id("t")
        self.owner.failure = grpc.StatusCode.NOT_FOUND
        with self.assertRaises(grpc.RpcError) as raised:
            c.next_id("t")
        self.assertEqual(grpc.StatusCode.NOT_FOUND, raised.exception.code())
        self.assertEqual(1, self.given.calls, "an answer is not an outage: the call did not move")

    def test_callOwners_ownerNamedAsAUriOrWithoutAPort_neverCalled(self):
        c = self.client(call_owners=True)
        for named in ("unix:/tmp/leaf.sock", "dns://resolver/evil:443", "evil", "127.0.0.1:1/x"):
            self.given.name = named
            before = self.given.calls
            c.next_id("t")
            c.next_id("t")
            self.assertEqual(before + 2, self.given.calls, named)
        self.assertEqual(0, c._owners.channels(), "no channel was opened")

    def test_callOwners_at16OwnerChannels_thoseNoTagNamesMakeRoom(self):
        owners = self.client(call_owners=True)._owners
        for i in range(17):
            owners.learn("t%d" % i, "127.0.0.%d:50051" % (i + 2))
        for i in range(16):
            self.assertIsNotNone(owners.owner_of("t%d" % i), "t%d" % i)
        self.assertIsNone(owners.owner_of("t16"), "a 17th owner while 16 are named")
        self.assertEqual(16, owners.channels())

        owners.learn("t0", "127.0.0.3:50051")  # t0 moved to t1's owner: its old one is unnamed
        self.assertIsNotNone(owners.owner_of("t16"), "room made by the owner no tag names")
        self.assertEqual(16, owners.channels())

    def test_callOwners_past1024Tags_boundKept(self):
        owners = self.client(call_owners=True)._owners
        for i in range(1024):
            owners.learn("t%d" % i, self.owner.target)
        self.assertEqual(1024, owners.tags())
        owners.learn("one-more", self.owner.target)
        self.assertLessEqual(owners.tags(), 1024)
        self.assertIsNotNone(owners.owner_of("one-more"), "the newest tag is kept")


if __name__ == "__main__":
    unittest.main()
