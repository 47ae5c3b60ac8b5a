'use strict';
// callOwners against two fake LeafServices in this process on loopback ports: the one the client
// is given names the other as a STRICT tag's owner in the `leaf-owner` response header. Each
// fake hands out its own numbers (the owner's from OWNER_FIRST), so each ID tells who answered.
const { test, beforeEach, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { LeafClient, status } = require('@leaf-ids/client');

const PROTO = path.join(path.dirname(require.resolve('@leaf-ids/client/package.json')), 'proto');
const { LeafService } = grpc.loadPackageDefinition(protoLoader.loadSync('leaf/v1/leaf.proto', {
  keepCase: true, longs: String, enums: String, defaults: true, includeDirs: [PROTO],
})).leaf.v1;

const OWNER_FIRST = 1000000;

/**
 * A LeafService handing out first, first + 1, … to NextId, NextIdBatch, NextFormattedId (F-n),
 * NextFormattedIdBatch and NextSequence alike; it names `owner.name` (when set) in the leaf-owner
 * header of every answer, errors included, counts its calls, answers `failure` when set and
 * never answers while `silent`.
 */
async function fakeLeaf(first) {
  let next = first;
  const fake = {
    name: null, failure: null, silent: false, calls: 0, server: new grpc.Server(), target: null,
  };
  const headers = () => {
    const md = new grpc.Metadata();
    if (fake.name !== null) md.set('leaf-owner', fake.name);
    return md;
  };
  const unary = (answer) => (call, callback) => {
    fake.calls += 1;
    if (fake.silent) return;
    if (fake.failure !== null) {
      callback({ code: fake.failure, details: 'failed by the test', metadata: headers() });
      return;
    }
    call.sendMetadata(headers());
    callback(null, answer(call.request));
  };
  const stream = (answer) => (call) => {
    fake.calls += 1;
    if (fake.failure !== null) {
      call.emit('error',
        { code: fake.failure, details: 'failed by the test', metadata: headers() });
      return;
    }
    call.sendMetadata(headers());
    call.write(answer(call.request));
    call.end();
  };
  const take = (count) => Array.from({ length: count }, () => String(next++));
  fake.server.addService(LeafService.service, {
    NextId: unary(() => ({ id: String(next++) })),
    NextFormattedId: unary(() => ({ value: `F-${next++}` })),
    NextSequence: unary(() => ({ value: String(next++) })),
    NextIdBatch: stream((req) => ({ ids: take(req.count) })),
    NextFormattedIdBatch: stream((req) => ({ values: take(req.count).map((n) => `F-${n}`) })),
  });
  const port = await new Promise((resolve, reject) => fake.server.bindAsync('127.0.0.1:0',
    grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  fake.target = `127.0.0.1:${port}`;
  return fake;
}

let given;
let owner;
let now = 0; // the client's clock (ms): moved by the test alone
const clients = [];

function client(options = {}) {
  const c = new LeafClient(given.target, {
    deadlineMs: 5000, failoverAfterMs: 2000, retryPreferredAfterMs: 30000, clock: () => now,
    ...options,
  });
  clients.push(c);
  return c;
}

beforeEach(async () => {
  now = 0;
  owner = await fakeLeaf(OWNER_FIRST);
  given = await fakeLeaf(1);
  given.name = owner.target;
});

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  given.server.forceShutdown();
  owner.server.forceShutdown();
});

test('callOwners: once the owner is named, ID calls on the tag go to it, not others', async () => {
  const c = client({ callOwners: true });
  assert.equal(await c.nextId('t'), 1n, 'the first call goes to the target, which names the owner');
  assert.equal(await c.nextId('t'), BigInt(OWNER_FIRST), 'then straight to the owner');
  assert.deepEqual(await c.nextIds('t', 2), [BigInt(OWNER_FIRST + 1), BigInt(OWNER_FIRST + 2)],
    'batches too');
  assert.equal(await c.nextFormattedId('t'), `F-${OWNER_FIRST + 3}`, 'formatted numbers too');
  assert.deepEqual(await c.nextFormattedIds('t', 1), [`F-${OWNER_FIRST + 4}`]);
  assert.equal(given.calls, 1, 'the target was called once');
  assert.equal(await c.nextId('u'), 2n, 'another tag goes to the target until named');
});

test('callOwners: a batch\'s answer names the owner too', async () => {
  const c = client({ callOwners: true });
  assert.deepEqual(await c.nextFormattedIds('t', 1), ['F-1']);
  assert.equal(await c.nextFormattedId('t'), `F-${OWNER_FIRST}`);
});

test('callOwners: an error naming the owner teaches it as an answer does', async () => {
  const c = client({ callOwners: true });
  given.failure = status.FAILED_PRECONDITION;
  await assert.rejects(c.nextId('t'), (e) => e.code === status.FAILED_PRECONDITION);
  assert.equal(await c.nextId('t'), BigInt(OWNER_FIRST), 'the owner the error named');
});

test('callOwners: nextSequence goes to the target and its answers name no owner', async () => {
  const c = client({ callOwners: true });
  await c.nextId('t');
  assert.equal(await c.nextSequence('t', 'k'), 2n, 'to the target though the owner is known');
  assert.equal(owner.calls, 0, 'the owner saw no call');
  assert.equal(await c.nextSequence('u', 'k'), 3n);
  assert.equal(await c.nextId('u'), 4n, 'a sequence\'s answer taught no owner of u');
  assert.equal(await c.nextId('u'), BigInt(OWNER_FIRST), 'an ID call\'s answer did');
});

test('by default every call goes to the target, whatever the header names', async () => {
  const c = client();
  for (let i = 1; i <= 3; i++) assert.equal(await c.nextId('t'), BigInt(i));
  assert.deepEqual(await c.nextIds('t', 1), [4n]);
  assert.equal(await c.nextFormattedId('t'), 'F-5');
  assert.equal(owner.calls, 0, 'the owner was never called');
  assert.equal(c.owners, null, 'no owner is even remembered');
});

test('callOwners: an owner that fails is passed over, then tried again', async () => {
  const c = client({ callOwners: true });
  await c.nextId('t');
  owner.failure = status.UNAVAILABLE;
  assert.equal(await c.nextId('t'), 2n, 'the same call went on to the target');
  assert.equal(owner.calls, 1);
  assert.equal(await c.nextId('t'), 3n, 'the owner is passed over');
  assert.equal(owner.calls, 1);

  owner.failure = null;
  now += 30000;
  assert.equal(await c.nextId('t'), BigInt(OWNER_FIRST),
    'the owner, still named, tried after the period');
  assert.equal(given.calls, 3);
});

test('callOwners: an owner silent past failoverAfterMs is passed over', async () => {
  const c = client({ callOwners: true, failoverAfterMs: 200 });
  await c.nextId('t');
  owner.silent = true;
  assert.equal(await c.nextId('t'), 2n, 'the call went on to the target after the bound');
  assert.equal(await c.nextId('t'), 3n, 'the owner is passed over');
  assert.equal(owner.calls, 1);
});

test('callOwners: an owner\'s answer other than unavailable stands', async () => {
  const c = client({ callOwners: true });
  await c.nextId('t');
  owner.failure = status.NOT_FOUND;
  await assert.rejects(c.nextId('t'), (e) => e.code === status.NOT_FOUND);
  assert.equal(given.calls, 1, 'an answer is not an outage: the call did not move');
});

test('callOwners: an owner named as a URI or without a port is never called', async () => {
  const c = client({ callOwners: true });
  for (const named of ['unix:/tmp/leaf.sock', 'dns://resolver/evil:443', 'evil', '127.0.0.1:1/x']) {
    given.name = named;
    const before = given.calls;
    await c.nextId('t');
    await c.nextId('t');
    assert.equal(given.calls, before + 2, named);
  }
  assert.equal(c.owners.channels, 0, 'no channel was opened');
});

test('callOwners: at most 16 owner channels; those no tag names make room', async () => {
  const c = client({ callOwners: true });
  for (let i = 0; i < 17; i++) c.owners.learn(`t${i}`, `127.0.0.${i + 2}:50051`);
  for (let i = 0; i < 16; i++) assert.notEqual(c.owners.ownerOf(`t${i}`), null, `t${i}`);
  assert.equal(c.owners.ownerOf('t16'), null, 'a 17th owner while 16 are named');
  assert.equal(c.owners.channels, 16);

  c.owners.learn('t0', '127.0.0.3:50051'); // t0 moved to t1's owner: its old one is named by none
  assert.notEqual(c.owners.ownerOf('t16'), null, 'room made by the owner no tag names');
  assert.equal(c.owners.channels, 16);
});

test('callOwners: at most 1,024 tags remembered', async () => {
  const c = client({ callOwners: true });
  for (let i = 0; i < 1024; i++) c.owners.learn(`t${i}`, owner.target);
  assert.equal(c.owners.ownerOfTag.size, 1024);
  c.owners.learn('one-more', owner.target);
  assert.ok(c.owners.ownerOfTag.size <= 1024, `${c.owners.ownerOfTag.size} tags`);
  assert.notEqual(c.owners.ownerOf('one-more'), null, 'the newest tag is kept');
});
