'use strict';
// The packed package's CachedIdGenerator against the packaged Leaf server: every ID once over
// 100,000 IDs and under many concurrent callers, and a refusal as a clear error.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { LeafClient, CachedIdGenerator, LeafIdError, status } = require('@leaf-ids/client');
const { startServer } = require('./support/packaged-server');

const ADMIN_TOKEN = 'node-cache-admin-token';
let server;
let client;

before(async () => {
  server = await startServer(['--admin-token', ADMIN_TOKEN]);
  client = new LeafClient(server.target, { token: ADMIN_TOKEN });
  await client.waitForReady(10000);
});

after(async () => {
  if (client) client.close();
  if (server) await server.stop();
});

test('100,000 IDs from the cache: every one a BigInt, none twice, none issued elsewhere', async () => {
  await client.createTag('node-cache-100k', { step: 1000 });
  const gen = await CachedIdGenerator.create(client, 'node-cache-100k',
    { minBlockSize: 1000, maxBlockSize: 20000 });
  const seen = new Set();
  for (let i = 0; i < 100000; i++) {
    const id = await gen.next();
    if (typeof id !== 'bigint') assert.fail(`ID ${i} is a ${typeof id}`);
    seen.add(id);
  }
  assert.equal(seen.size, 100000, `duplicates: ${100000 - seen.size}`);
  assert.ok(gen.refills >= 2, `reservations made: ${gen.refills}`);
  const others = await client.nextIds('node-cache-100k', 1000);
  const repeated = others.filter((id) => seen.has(id));
  assert.deepEqual(repeated, [], 'NextIdBatch repeats no cached ID');
  gen.close();
});

test('20,000 concurrent next() calls on small reservations: 0 duplicates', async () => {
  await client.createTag('node-cache-concurrent', { step: 100 });
  const gen = await CachedIdGenerator.create(client, 'node-cache-concurrent',
    { minBlockSize: 50, maxBlockSize: 50, maxWaitMs: 30000 });
  const calls = [];
  for (let i = 0; i < 20000; i++) calls.push(gen.next());
  const ids = await Promise.all(calls);
  const duplicates = ids.length - new Set(ids).size;
  assert.equal(duplicates, 0, 'duplicate IDs among concurrent callers');
  assert.ok(gen.waits > 0, 'callers waited for reservations, so the test crossed many refills');
  assert.ok(gen.refills >= 400, `20,000 IDs in reservations of 50: ${gen.refills}`);
  gen.close();
});

test('a tag the server does not know: create rejects with NOT_FOUND naming the tag', async () => {
  await assert.rejects(CachedIdGenerator.create(client, 'node-cache-nope'), (err) => {
    assert.ok(err instanceof LeafIdError, `a LeafIdError, got ${err}`);
    assert.equal(err.code, status.NOT_FOUND);
    assert.match(err.message, /biz_tag node-cache-nope/);
    return true;
  });
});

test('a server requiring a client token: a client without it gets a clear refusal', async () => {
  const guarded = await startServer(['--client-token', 'node-cache-client-token',
    '--admin-token', ADMIN_TOKEN]);
  const admin = new LeafClient(guarded.target, { token: ADMIN_TOKEN });
  const anonymous = new LeafClient(guarded.target);
  try {
    await admin.createTag('node-cache-guarded');
    await assert.rejects(CachedIdGenerator.create(anonymous, 'node-cache-guarded'),
      { name: 'LeafIdError', code: status.UNAUTHENTICATED, message: /node-cache-guarded/ });
  } finally {
    admin.close();
    anonymous.close();
    await guarded.stop();
  }
});
