"""The Python client's failover on a lost connection, on fake attempts: no server needed.

Run from the repository: /usr/bin/python3 -m unittest discover -s examples/python -v
"""
import shutil
import tempfile
import unittest

import grpc

from leaf_client import LeafClient, connection_lost, generate_stubs


class _Error(grpc.RpcError):
    def __init__(self, code, details):
        super().__init__()
        self._code = code
        self._details = details

    def code(self):
        return self._code

    def details(self):
        return self._details


class ConnectionLossTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="leaf-py-loss-")
        cls.stubs = generate_stubs(cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_connectionLost_resetStatuses_true(self):
        for code, details in ((grpc.StatusCode.UNKNOWN, "Stream removed"),
                              (grpc.StatusCode.UNAVAILABLE, "Socket closed"),
                              (grpc.StatusCode.INTERNAL, "Received RST_STREAM with code 2"),
                              (grpc.StatusCode.UNKNOWN, "Connection reset by peer")):
            self.assertTrue(connection_lost(_Error(code, details)), "%s %s" % (code, details))

    def test_connectionLost_serverAnswers_false(self):
        for code, details in ((grpc.StatusCode.UNKNOWN, "boom"),
                              (grpc.StatusCode.INTERNAL, "server bug"),
                              (grpc.StatusCode.NOT_FOUND, "Stream removed"),
                              (grpc.StatusCode.UNKNOWN, None)):
            self.assertFalse(connection_lost(_Error(code, details)), "%s %s" % (code, details))

    def test_call_streamRemoved_movesToTheNextTarget_writesDoNot(self):
        client = LeafClient(["127.0.0.1:1", "127.0.0.1:2"], *self.stubs, deadline=5.0,
                            failover_after=1.0)
        try:
            tried = []

            def invoke(route, timeout):
                tried.append(route.target)
                if route.target == "127.0.0.1:1":
                    raise _Error(grpc.StatusCode.UNKNOWN, "Stream removed")
                return 42

            self.assertEqual(42, client._call(invoke), "answered by the second target")
            self.assertEqual(["127.0.0.1:1", "127.0.0.1:2"], tried)
            tried.clear()
            with self.assertRaises(grpc.RpcError):
                client._call(invoke, failover=False)
            self.assertEqual(["127.0.0.1:1"], tried, "a write stays on the first target")
        finally:
            client.close()


if __name__ == "__main__":
    unittest.main()
