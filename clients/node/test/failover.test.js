'use strict';
// A client of several targets against two packaged servers, region 0/2 and region 1/2 (each ID
// tells which answered: region 1's lie at 2^62 and up). Region 0's server is reached through a
// proxy that the test stops (refused, connections dropped) and starts again.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { LeafClient, CachedIdGenerator, status } = require('@leaf-ids/client');
const { startServer, freePort } = require('./support/packaged-server');

const SHARE = 2n ** 62n;
const TAG = 'node-regions';
const RETRY_PREFERRED_AFTER_MS = 30000;

/** A TCP proxy to `port` on 127.0.0.1: stop() refuses and drops connections, start() listens again. */
function proxyTo(port) {
  const sockets = new Set();
  let listener = null;
  let listenPort = 0;
  const proxy = {
    get target() { return `127.0.0.1:${listenPort}`; },
    start() {
      listener = net.createServer((client) => {
        const upstream = net.connect(port, '127.0.0.1');
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {});
        }
        client.pipe(upstream).pipe(client);
      });
      return new Promise((resolve) => listener.listen(listenPort, '127.0.0.1', () => {
        listenPort = listener.address().port;
        resolve();
      }));
    },
    stop() {
      if (!listener.listening) return Promise.resolve();
      const closed = new Promise((resolve) => listener.close(resolve));
      for (const s of sockets) s.destroy();
      return closed;
    },
  };
  return proxy;
}

let regions = [];
let proxy;
let silent;
const silentSockets = new Set();
let silentTarget;
let client;
let now = 0; // the client's clock (ms): moved by the test alone

before(async () => {
  regions = await Promise.all(['0/2', '1/2'].map((r) => startServer(['--region', r])));
  for (const region of regions) {
    const direct = new LeafClient(region.target);
    await direct.waitForReady(10000);
    await direct.createTag(TAG, { step: 100 });
    direct.close();
  }
  proxy = proxyTo(regions[0].port);
  await proxy.start();
  // Accepts connections and never answers: a server that hangs.
  silent = net.createServer((socket) => {
    silentSockets.add(socket);
    socket.on('error', () => {});
  });
  const port = await freePort();
  await new Promise((resolve) => silent.listen(port, '127.0.0.1', resolve));
  silentTarget = `127.0.0.1:${port}`;
  client = new LeafClient([proxy.target, regions[1].target], {
    deadlineMs: 8000, failoverAfterMs: 1000, retryPreferredAfterMs: RETRY_PREFERRED_AFTER_MS,
    clock: () => now,
  });
});

after(async () => {
  if (client) client.close();
  if (proxy) await proxy.stop();
  for (const socket of silentSockets) socket.destroy();
  if (silent) silent.close();
  await Promise.all(regions.map((r) => r.stop()));
});

const region = (id) => (id < SHARE ? 0 : 1);

test('several targets: calls go to the first while it answers', async () => {
  assert.equal(region(await client.nextId(TAG)), 0);
  assert.deepEqual(new Set((await client.nextIds(TAG, 30)).map(region)), new Set([0]));
  assert.equal(client.currentTarget(), proxy.target);
});

test('first target unavailable: ID calls move to the next, CreateTag and SetFormat do not', async () => {
  await proxy.stop();
  assert.equal(region(await client.nextId(TAG)), 1, 'NextId answered by region 1');
  const ids = await client.nextIds(TAG, 50, 20);
  assert.equal(ids.length, 50);
  assert.deepEqual(new Set(ids.map(region)), new Set([1]), 'NextIdBatch answered by region 1');
  for (const r of await client.reserveIds(TAG, 200)) {
    assert.equal(region(r.start), 1, `ReserveIds range ${r.start}..${r.end} of region 1`);
  }
  assert.equal(client.currentTarget(), regions[1].target);
  await assert.rejects(client.createTag('node-elsewhere'), (err) => err.code === status.UNAVAILABLE,
    'CreateTag stays on the first target and fails while it is down');
  await assert.rejects(client.setFormat(TAG, { pattern: 'N-{seq:9}' }),
    (err) => err.code === status.UNAVAILABLE, 'SetFormat stays on the first target too');
});

test('first target back: passed over until retryPreferredAfterMs, then calls move back', async () => {
  await proxy.start();
  assert.equal(region(await client.nextId(TAG)), 1, 'still passed over: the clock has not moved');
  // Each round moves the clock past the mark; the channel may still wait out its reconnect backoff.
  let back = false;
  for (const end = Date.now() + 20000; !back && Date.now() < end;) {
    now += RETRY_PREFERRED_AFTER_MS;
    back = region(await client.nextId(TAG)) === 0;
    if (!back) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.ok(back, 'calls went back to region 0 once it answered');
  assert.equal(client.currentTarget(), proxy.target);
});

test('a silent target: the call moves on after failoverAfterMs, within its deadline', async () => {
  const slow = new LeafClient([silentTarget, regions[1].target], { deadlineMs: 8000, failoverAfterMs: 500 });
  try {
    const start = performance.now();
    const id = await slow.nextId(TAG);
    const took = performance.now() - start;
    assert.equal(region(id), 1, 'answered by the second target');
    assert.ok(took >= 400 && took < 8000, `moved after waiting for the first: ${Math.round(took)} ms`);
    assert.equal(region(await slow.nextId(TAG)), 1, 'the next call goes straight to the second');
  } finally {
    slow.close();
  }
});

test('CachedIdGenerator keeps serving while its client moves', async () => {
  const generator = await CachedIdGenerator.create(client, TAG,
    { minBlockSize: 100, maxBlockSize: 100 });
  const ids = [await generator.next()];
  assert.equal(region(ids[0]), 0, 'the first reservation from region 0');
  await proxy.stop();
  for (let i = 0; i < 400; i++) ids.push(await generator.next());
  await proxy.start();
  assert.equal(new Set(ids).size, ids.length, 'no ID twice');
  assert.ok(ids.some((id) => region(id) === 1), 'reservations from region 1 after the move');
  generator.close();
});
