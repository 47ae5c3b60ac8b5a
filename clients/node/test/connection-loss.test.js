'use strict';
// The Node client's failover on a lost connection, on fake attempts: no server needed.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { LeafClient, connectionLost, status } = require('@leaf-ids/client');

function error(code, details) {
  const err = new Error(`${code}: ${details}`);
  err.code = code;
  err.details = details;
  return err;
}

test('connectionLost: the statuses grpc-js gives a reset connection', () => {
  for (const [code, details] of [
    [status.UNAVAILABLE, 'Connection dropped'],
    [status.INTERNAL, 'Received RST_STREAM with code 2 triggered by internal client error'],
    [status.UNKNOWN, 'read ECONNRESET'],
  ]) {
    assert.ok(connectionLost(error(code, details)), `${code} ${details}`);
  }
});

test('connectionLost: a server\'s answer is not a lost connection', () => {
  for (const [code, details] of [
    [status.UNKNOWN, 'boom'],
    [status.INTERNAL, 'server bug'],
    [status.NOT_FOUND, 'Connection dropped'],
  ]) {
    assert.ok(!connectionLost(error(code, details)), `${code} ${details}`);
  }
});

test('a call whose connection is reset moves to the next target; a write does not', async () => {
  const client = new LeafClient(['127.0.0.1:1', '127.0.0.1:2'], { deadlineMs: 5000 });
  try {
    const tried = [];
    const invoke = async (route) => {
      const i = client.routes.indexOf(route);
      tried.push(i);
      if (i === 0) throw error(status.INTERNAL, 'Received RST_STREAM with code 2');
      return 42;
    };
    assert.equal(await client.call(invoke), 42, 'answered by the second target');
    assert.deepEqual(tried, [0, 1]);
    tried.length = 0;
    await assert.rejects(client.call(invoke, false), (e) => e.code === status.INTERNAL);
    assert.deepEqual(tried, [0], 'a write stays on the first target');
  } finally {
    client.close();
  }
});
