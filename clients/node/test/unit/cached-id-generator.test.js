'use strict';
// CachedIdGenerator's rules against a fake client whose ReserveIds the test answers by hand: the
// refill point, the bounds (one fetch in flight, one reservation queued), the sizing, the wait
// limit, a refusal, close.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { CachedIdGenerator, LeafIdError } = require('@leaf-ids/client');

/** A client whose reserveIds calls wait in `pending` until the test answers them. */
function fakeClient() {
  let next = 1n;
  const client = {
    pending: [],
    asked: [],
    reserveIds(bizTag, count) {
      client.asked.push(count);
      return new Promise((resolve, reject) => client.pending.push({ bizTag, count, resolve, reject }));
    },
    /** Answers the oldest call with `count` IDs as two ranges with a gap between them. */
    answer() {
      const call = client.pending.shift();
      assert.ok(call, 'a ReserveIds is in flight');
      const half = BigInt(Math.floor(call.count / 2));
      const first = { start: next, end: next + half };
      const second = { start: next + half + 10n, end: next + BigInt(call.count) + 10n };
      next = second.end;
      call.resolve(half === 0n ? [second] : [first, second]);
    },
    refuse(code, details) {
      const call = client.pending.shift();
      assert.ok(call, 'a ReserveIds is in flight');
      const err = new Error(`${code} ${details}`);
      err.code = code;
      err.details = details;
      call.reject(err);
    },
  };
  return client;
}

/** Lets queued promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

async function created(client, options) {
  const creating = CachedIdGenerator.create(client, 'unit', options);
  await settle();
  client.answer();
  return creating;
}

test('next_withinReservation_servesEveryIdOnceAcrossRanges', async () => {
  const client = fakeClient();
  const gen = await created(client, { minBlockSize: 10, maxBlockSize: 10 });
  const ids = [];
  for (let i = 0; i < 10; i++) ids.push(await gen.next());
  assert.deepEqual(ids, [1n, 2n, 3n, 4n, 5n, 16n, 17n, 18n, 19n, 20n], 'both ranges, in order');
  gen.close();
});

test('next_atRefillPoint_fetchesOnceInBackgroundAndQueuesOneReservation', async () => {
  const client = fakeClient();
  const gen = await created(client, { minBlockSize: 100, maxBlockSize: 100, refillThreshold: 0.2 });
  for (let i = 0; i < 20; i++) await gen.next();
  await settle();
  assert.equal(client.pending.length, 0, 'no fetch before 20% of the reservation is used');
  await gen.next();
  await settle();
  assert.equal(client.pending.length, 1, 'one fetch at the refill point');
  for (let i = 0; i < 30; i++) await gen.next();
  await settle();
  assert.equal(client.pending.length, 1, 'still one fetch in flight, none more');
  client.answer();
  await settle();
  for (let i = 0; i < 20; i++) await gen.next();
  await settle();
  assert.equal(client.pending.length, 0, 'no fetch while a reservation is queued');
  assert.equal(gen.idsLeft(), 129, 'the rest of the first reservation and the queued one');
  gen.close();
});

test('next_everyRangeUsedUp_waitsForTheRefillAndCountsAWait', async () => {
  const client = fakeClient();
  const gen = await created(client, { minBlockSize: 4, maxBlockSize: 4, refillThreshold: 0.5 });
  for (let i = 0; i < 4; i++) await gen.next();
  await settle();
  assert.equal(client.pending.length, 1, 'the refill started at the refill point');
  const waiting = gen.next();
  await settle();
  client.answer();
  assert.equal(typeof await waiting, 'bigint');
  assert.equal(gen.waits, 1, 'one caller waited');
  gen.close();
});

test('next_manyConcurrentCallers_eachIdOnce', async () => {
  const client = fakeClient();
  const gen = await created(client, { minBlockSize: 7, maxBlockSize: 7 });
  const calls = [];
  for (let i = 0; i < 1000; i++) calls.push(gen.next());
  let done = false;
  const all = Promise.all(calls).finally(() => { done = true; });
  while (!done) {
    await settle();
    if (client.pending.length > 0) client.answer();
  }
  const ids = await all;
  assert.equal(new Set(ids).size, 1000, 'no ID handed out twice');
  assert.ok(client.asked.every((n) => n === 7), 'every reservation within the bounds');
  gen.close();
});

test('next_serverRefuses_waitingCallersRejectWithTheReason', async () => {
  const client = fakeClient();
  const gen = await created(client, { minBlockSize: 2, maxBlockSize: 2, refillThreshold: 0.5 });
  await gen.next();
  await gen.next();
  const a = gen.next();
  const b = gen.next();
  await settle();
  client.refuse(7, 'missing or invalid token');
  for (const p of [a, b]) {
    await assert.rejects(p, (err) => err instanceof LeafIdError && err.code === 7
      && /biz_tag unit/.test(err.message) && /invalid token/.test(err.message));
  }
  assert.equal(gen.refillFailures, 1);
  const c = gen.next();
  await settle();
  assert.equal(client.pending.length, 1, 'the next caller tries again');
  client.answer();
  assert.equal(typeof await c, 'bigint', 'served once the server answers');
  gen.close();
});

test('create_serverRefuses_rejectsWithCodeAndTag', async () => {
  const client = fakeClient();
  const creating = CachedIdGenerator.create(client, 'missing', {});
  await settle();
  client.refuse(5, 'biz_tag missing does not exist');
  await assert.rejects(creating, { name: 'LeafIdError', code: 5, message: /biz_tag missing/ });
});

test('next_nothingArrivesWithinMaxWait_rejectsWithDeadlineExceeded', async () => {
  const client = fakeClient();
  let now = 0;
  const gen = await created(client,
    { minBlockSize: 1, maxBlockSize: 1, refillThreshold: 0, maxWaitMs: 20, clock: () => now });
  await gen.next();
  const waiting = gen.next();
  now = 25;
  await assert.rejects(waiting, { code: 4, message: /within 20 ms/ });
  gen.close();
});

test('blockSize_followsTheRateWithinBounds', async () => {
  const client = fakeClient();
  let now = 0;
  const gen = await created(client, { minBlockSize: 10, maxBlockSize: 1000,
    targetRefillIntervalMs: 1000, refillThreshold: 0.9, clock: () => now });
  for (let i = 0; i < 10; i++) await gen.next();
  now = 100; // 10 IDs in 100 ms: 100 IDs a second
  await settle();
  client.answer();
  await gen.next();
  assert.equal(gen.blockSize(), 100, 'sized to last 1 s at 100 IDs a second');
  now = 100.001; // the next reservation gone almost at once: capped at the maximum
  for (let i = 0; i < 9; i++) await gen.next();
  await settle();
  client.answer();
  await gen.next();
  assert.equal(gen.blockSize(), 1000, 'never above maxBlockSize');
  gen.close();
});

test('close_dropsTheCacheAndRejectsLaterCalls', async () => {
  const client = fakeClient();
  const gen = await created(client, { minBlockSize: 10, maxBlockSize: 10 });
  await gen.next();
  gen.close();
  await assert.rejects(gen.next(), { code: 1, message: /closed/ });
  assert.equal(gen.idsLeft(), 0);
});

test('create_badOptions_throwNamingTheOption', async () => {
  const client = fakeClient();
  await assert.rejects(CachedIdGenerator.create(client, 't', { refillThreshold: 1 }), /refillThreshold/);
  await assert.rejects(CachedIdGenerator.create(client, 't', { maxBlockSize: 10000001 }), /maxBlockSize/);
  await assert.rejects(CachedIdGenerator.create(client, 't', { minBlockSize: 0 }), /minBlockSize/);
  await assert.rejects(CachedIdGenerator.create(client, 't', { maxWaitMs: 0 }), /maxWaitMs/);
});
