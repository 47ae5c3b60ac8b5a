'use strict';
// Starts the packaged Leaf server (server/target/leaf-server.jar) on a free port with an H2
// database in a temporary directory, and checks the packed package's LeafClient against it.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { LeafClient, status } = require('@leaf-ids/client');
const { startServer } = require('./support/packaged-server');

// The server requires this token for CreateTag and UpdateStep; the client sends it.
const ADMIN_TOKEN = 'node-test-admin-token';
// The AES key of opaque formatted numbers (--format-key-file): 32 hex digits, AES-128.
const FORMAT_KEY = '000102030405060708090a0b0c0d0e0f';
let server;
let client;
let target;

before(async () => {
  server = await startServer((files) => ['--admin-token', ADMIN_TOKEN,
    '--format-key-file', files['format.key'],
    // A claimed worker ID issues after the lease TTL plus 1 s: keep the test's wait short.
    '--worker-lease-ttl', '1s',
    // CreateTag with STRICT or SCATTERED, and SetOrdering, return after this TTL.
    '--tag-lease-ttl', '1s'], { 'format.key': `${FORMAT_KEY}\n` });
  target = server.target;
  client = new LeafClient(target, { token: ADMIN_TOKEN });
  await client.waitForReady(10000);
});

after(async () => {
  if (client) client.close();
  if (server) await server.stop();
});

test('createTag returns the stored row with the given step', async () => {
  const tag = await client.createTag('node-order', { step: 100, description: 'node test' });
  assert.equal(tag.biz_tag, 'node-order');
  assert.equal(tag.step, 100);
  assert.equal(tag.max_id, 1n, 'max_id 0 means the default, 1');
  assert.equal(tag.description, 'node test');
});

test('nextId hands out 1, 2, 3 as BigInt', async () => {
  await client.createTag('node-seq');
  const ids = [await client.nextId('node-seq'), await client.nextId('node-seq'), await client.nextId('node-seq')];
  assert.deepEqual(ids, [1n, 2n, 3n]);
});

test('nextIds streams count increasing IDs across chunks and segments', async () => {
  await client.createTag('node-batch', { step: 7 });
  const ids = await client.nextIds('node-batch', 2500, 1000);
  assert.equal(ids.length, 2500);
  assert.equal(ids[0], 1n, 'the first ID of the tag');
  // Segments loaded side by side may land out of order: a gap, never a repeat or a step back.
  for (let i = 1; i < ids.length; i++) {
    assert.ok(ids[i] > ids[i - 1], `ID at ${i} (${ids[i]}) above the one before (${ids[i - 1]})`);
  }
});

test('int64 IDs past 2^53 keep every digit', async () => {
  const start = 2n ** 60n;
  await client.createTag('node-big', { maxId: start, step: 10 });
  assert.equal(await client.nextId('node-big'), start);
  assert.equal(await client.nextId('node-big'), start + 1n);
});

test('getTag shows the cached segment after use', async () => {
  await client.createTag('node-status', { step: 50 });
  await client.nextId('node-status');
  const st = await client.getTag('node-status');
  assert.equal(st.cached, true);
  assert.equal(st.tag.biz_tag, 'node-status');
  assert.equal(st.current.start, '1');
  assert.equal(st.current.end, '51');
});

test('errors arrive as gRPC status codes', async () => {
  // Object matchers, so a mismatch prints the error it got.
  await assert.rejects(client.nextId('node-ghost'), { code: status.NOT_FOUND, details: /node-ghost/ });
  await client.createTag('node-twice');
  await assert.rejects(client.createTag('node-twice'), { code: status.ALREADY_EXISTS });
  await assert.rejects(client.nextIds('node-twice', 0), { code: status.INVALID_ARGUMENT, details: /count/ });
});

test('createTag without the admin token is refused, and nextId stays open', async () => {
  const anonymous = new LeafClient(target);
  const wrong = new LeafClient(target, { token: 'not-the-token' });
  try {
    await assert.rejects(anonymous.createTag('node-guarded'), { code: status.UNAUTHENTICATED });
    await assert.rejects(wrong.createTag('node-guarded'), { code: status.PERMISSION_DENIED });
    await client.createTag('node-guarded');
    assert.equal(await anonymous.nextId('node-guarded'), 1n, 'ID RPCs need no token without --client-token');
  } finally {
    anonymous.close();
    wrong.close();
  }
});

test('reserveIds returns at most 3 ascending disjoint ranges of exactly count IDs', async () => {
  await client.createTag('node-reserve', { step: 100 });
  const first = await client.reserveIds('node-reserve', 30);
  assert.deepEqual(first, [{ start: 1n, end: 31n }], 'from the current segment');
  const big = await client.reserveIds('node-reserve', 100000);
  assert.ok(big.length >= 1 && big.length <= 3, `1 to 3 ranges: ${JSON.stringify(big, (k, v) => String(v))}`);
  let total = 0n;
  let lastEnd = 31n;
  for (const r of big) {
    assert.ok(r.start >= lastEnd && r.end > r.start, `ascending, disjoint, after the first: ${r.start}..${r.end}`);
    total += r.end - r.start;
    lastEnd = r.end;
  }
  assert.equal(total, 100000n, 'exact count');
  await assert.rejects(client.reserveIds('node-reserve', 0), { code: status.INVALID_ARGUMENT, details: /count/ });
  await assert.rejects(client.reserveIds('node-nope', 5), { code: status.NOT_FOUND });
});

test('snowflake IDs: unary and batch increase, decode names this server\'s worker', async () => {
  let worker;
  for (let i = 0; i < 200; i++) {
    worker = await client.getWorker();
    if (worker.worker_id >= 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(worker.worker_id >= 0, `the server leased a worker ID: ${JSON.stringify(worker)}`);
  assert.equal(worker.timestamp_bits, 41);
  const first = await client.nextSnowflakeId();
  const batch = await client.nextSnowflakeIds(5000, 1000);
  assert.equal(batch.length, 5000);
  let last = first;
  for (const id of batch) {
    assert.ok(id > last, `increasing: ${id} after ${last}`);
    last = id;
  }
  const parts = await client.decodeSnowflakeId(first);
  assert.equal(parts.id, first);
  assert.equal(parts.workerId, worker.worker_id);
  assert.ok(Math.abs(Number(parts.timestampMs) - Date.now()) < 60000, `issued now: ${parts.timestampMs}`);
  await assert.rejects(client.decodeSnowflakeId(-1n), { code: status.INVALID_ARGUMENT });

  const a = await client.nextUuid();
  const b = await client.nextUuid();
  assert.match(a.value, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(a.ulid.length, 26);
  assert.ok(a.value < b.value && a.ulid < b.ulid, `increasing: ${a.value} then ${b.value}`);
  const uuidParts = await client.decodeUuid(b.ulid);
  assert.equal(uuidParts.workerId, worker.worker_id);
});

test('nextUuids streams count increasing UUIDs of this server\'s worker', async () => {
  const worker = await client.getWorker();
  const values = await client.nextUuids(2500, 1000);
  assert.equal(values.length, 2500);
  assert.equal(new Set(values).size, 2500);
  for (let i = 1; i < values.length; i++) {
    assert.ok(values[i] > values[i - 1], `increasing: ${values[i - 1]} then ${values[i]}`);
  }
  assert.match(values[0], /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal((await client.decodeUuid(values.at(-1))).workerId, worker.worker_id);
  await assert.rejects(client.nextUuids(0), { code: status.INVALID_ARGUMENT, details: /count/ });
});

/**
 * `call()`, again while it rejects with UNAVAILABLE for up to 15 s: a STRICT tag's first calls
 * meet an owner taking the tag over ("…; retry").
 */
async function whileUnavailable(call) {
  const end = Date.now() + 15000;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (err.code !== status.UNAVAILABLE || Date.now() > end) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

test('nextSequence: each key of a STRICT tag has its own increasing sequence', async () => {
  const tag = await client.createTag({ bizTag: 'node-strict', ordering: 'STRICT' });
  assert.equal(tag.ordering, 'STRICT');
  const next = (key) => whileUnavailable(() => client.nextSequence('node-strict', key));
  const a1 = await next('chat-1');
  const b1 = await next('chat-2');
  const a2 = await next('chat-1');
  const a3 = await next('chat-1');
  const b2 = await next('chat-2');
  assert.equal(typeof a1, 'bigint');
  assert.ok(a1 >= 1n && b1 >= 1n, `from 1 on: ${a1}, ${b1}`);
  assert.ok(a1 < a2 && a2 < a3, `chat-1 increases: ${a1}, ${a2}, ${a3}`);
  assert.ok(b1 < b2, `chat-2 increases: ${b1}, ${b2}`);
  await client.createTag('node-per-server');
  await assert.rejects(client.nextSequence('node-per-server', 'chat-1'),
    { code: status.FAILED_PRECONDITION, details: /node-per-server/ });
  await assert.rejects(client.nextSequence('node-no-such-tag', 'chat-1'), { code: status.NOT_FOUND });
});

test('setOrdering makes a tag STRICT, with the admin token only', async () => {
  await client.createTag('node-to-strict');
  const anonymous = new LeafClient(target);
  try {
    await assert.rejects(anonymous.setOrdering('node-to-strict', 'STRICT'),
      { code: status.UNAUTHENTICATED });
  } finally {
    anonymous.close();
  }
  const tag = await client.setOrdering('node-to-strict', 'STRICT');
  assert.equal(tag.biz_tag, 'node-to-strict');
  assert.equal(tag.ordering, 'STRICT');
  assert.ok(await whileUnavailable(() => client.nextSequence('node-to-strict', 'k')) >= 1n);
  await assert.rejects(client.setOrdering('node-to-strict', 'SCATTERED'),
    { code: status.FAILED_PRECONDITION });
});

test('decodeScatteredId reads a SCATTERED tag\'s IDs back to their sequence', async () => {
  const tag = await client.createTag({ bizTag: 'node-scattered', step: 50, ordering: 'SCATTERED' });
  assert.equal(tag.ordering, 'SCATTERED');
  const ids = await client.nextIds('node-scattered', 120, 50);
  assert.equal(new Set(ids).size, 120);
  assert.ok(ids.every((id) => id > 0n), 'positive');
  assert.ok(ids.some((id, i) => i > 0 && id < ids[i - 1]), 'not increasing');
  // Decoded in the order issued: the sequence behind the scattered values increases (with gaps
  // where a segment went unused, which the contract allows), starting at 1.
  const sequences = [];
  for (const id of ids) sequences.push(await client.decodeScatteredId('node-scattered', id));
  assert.equal(sequences[0], 1n);
  assert.ok(sequences.every((v, i) => i === 0 || v > sequences[i - 1]),
    `increasing in the order issued: ${sequences.join(',')}`);
  await assert.rejects(client.decodeScatteredId('node-scattered', 0n),
    { code: status.INVALID_ARGUMENT });
  await assert.rejects(client.decodeScatteredId('node-per-server', ids[0]),
    { code: status.FAILED_PRECONDITION });
  await assert.rejects(client.decodeScatteredId('node-no-such-tag', ids[0]),
    { code: status.NOT_FOUND });
});

/** The UTC date as yyyyMMdd. */
function utcDay(date) {
  return date.toISOString().slice(0, 10).replaceAll('-', '');
}

/** The Luhn check digit of a string of digits. */
function luhn(digits) {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

test('formatted IDs: a tag created with a format numbers in it, and parse reads them back', async () => {
  const tag = await client.createTag('node-fmt', { step: 10, format: { pattern: 'N-{seq:6}' } });
  assert.equal(tag.format.pattern, 'N-{seq:6}');
  assert.equal(tag.format.reset, 'NEVER', 'the default reset, by name');
  const first = await client.nextFormattedId('node-fmt');
  const second = await client.nextFormattedId('node-fmt');
  assert.match(first, /^N-\d{6}$/);
  assert.ok(second > first, `${second} after ${first}`);
  const parts = await client.parseFormattedId('node-fmt', second);
  assert.deepEqual(parts, { period: '', sequence: BigInt(second.slice(2)), checkValid: true });
});

test('formatted IDs: a daily format shows today (UTC), and parse gives that day as the period', async () => {
  const before = utcDay(new Date());
  const tag = await client.createTag('node-fmt-daily');
  assert.equal(tag.format, null, 'a tag created without a format has none');
  const set = await client.setFormat('node-fmt-daily',
    { pattern: 'D-{yyyyMMdd}-{seq:4}', reset: 'DAILY', timeZone: 'UTC' });
  assert.deepEqual(set.format, { pattern: 'D-{yyyyMMdd}-{seq:4}', reset: 'DAILY', time_zone: 'UTC' });
  const value = await client.nextFormattedId('node-fmt-daily');
  const after = utcDay(new Date());
  const m = /^D-(\d{8})-(\d{4})$/.exec(value);
  assert.ok(m, `D-yyyyMMdd-nnnn: ${value}`);
  assert.ok(m[1] === before || m[1] === after, `today in UTC: ${value}`);
  const parts = await client.parseFormattedId('node-fmt-daily', value);
  assert.equal(parts.period, m[1], 'the period of a daily reset is its day');
  assert.equal(parts.sequence, BigInt(m[2]));
});

test('formatted IDs: a batch streams count unique increasing numbers across chunks', async () => {
  await client.createTag('node-fmt-batch', { step: 7, format: { pattern: 'B-{seq:8}' } });
  const values = await client.nextFormattedIds('node-fmt-batch', 2500, 1000);
  assert.equal(values.length, 2500);
  for (let i = 0; i < values.length; i++) {
    assert.match(values[i], /^B-\d{8}$/);
    if (i > 0) assert.ok(values[i] > values[i - 1], `${values[i]} after ${values[i - 1]}`);
  }
});

test('formatted IDs: the Luhn check digit is the standard one and parse checks it', async () => {
  await client.createTag('node-fmt-luhn', { format: { pattern: 'L{seq:6}{check:luhn}' } });
  const value = await client.nextFormattedId('node-fmt-luhn');
  assert.match(value, /^L\d{7}$/);
  assert.equal(value[7], luhn(value.slice(1, 7)), `Luhn digit of ${value}`);
  assert.equal((await client.parseFormattedId('node-fmt-luhn', value)).checkValid, true);
  const wrong = value.slice(0, 7) + ((Number(value[7]) + 1) % 10);
  assert.equal((await client.parseFormattedId('node-fmt-luhn', wrong)).checkValid, false, wrong);
});

test('formatted IDs: an opaque sequence is shown to the admin token only', async () => {
  const anonymous = new LeafClient(target);
  try {
    await client.createTag('node-fmt-opaque', { format: { pattern: 'P-{seq:8:opaque}' } });
    const values = await client.nextFormattedIds('node-fmt-opaque', 50);
    assert.equal(new Set(values).size, 50, 'unique');
    for (const v of values) assert.match(v, /^P-\d{8}$/);
    const admin = await client.parseFormattedId('node-fmt-opaque', values[0]);
    assert.equal(typeof admin.sequence, 'bigint');
    const hidden = await anonymous.parseFormattedId('node-fmt-opaque', values[0]);
    assert.equal(hidden.sequence, null, 'no sequence without the admin token');
    assert.equal(hidden.checkValid, true);
  } finally {
    anonymous.close();
  }
});

test('formatted IDs: errors arrive as the contract\'s status codes', async () => {
  await client.createTag('node-fmt-none');
  await assert.rejects(client.nextFormattedId('node-fmt-none'),
    { code: status.FAILED_PRECONDITION, details: /node-fmt-none/ });
  await assert.rejects(client.setFormat('node-fmt-none', { pattern: 'X-{yyyy}' }),
    { code: status.INVALID_ARGUMENT }, 'no sequence field');
  await assert.rejects(client.setFormat('node-fmt-none', { pattern: 'M-{yyyyMM}-{seq:4}', reset: 'DAILY' }),
    { code: status.INVALID_ARGUMENT }, 'a daily reset the pattern cannot show');
  await client.createTag('node-fmt-narrow', { format: { pattern: 'W{seq:1}' } });
  await assert.rejects(client.parseFormattedId('node-fmt-narrow', 'nope'), { code: status.INVALID_ARGUMENT });
  let issued = 0;
  const outOfRange = await (async () => {
    for (let i = 0; i < 20; i++) {
      try {
        await client.nextFormattedId('node-fmt-narrow');
        issued++;
      } catch (err) {
        return err;
      }
    }
    return null;
  })();
  assert.ok(outOfRange, 'a one-digit sequence runs out');
  assert.equal(outOfRange.code, status.OUT_OF_RANGE, outOfRange.message);
  assert.match(outOfRange.details, /node-fmt-narrow/);
  assert.ok(issued >= 1 && issued <= 10, `at most ten one-digit numbers before it, got ${issued}`);
});

test('formatted IDs: setFormat needs the admin token', async () => {
  const anonymous = new LeafClient(target);
  const wrong = new LeafClient(target, { token: 'not-the-token' });
  try {
    await client.createTag('node-fmt-guarded');
    await assert.rejects(anonymous.setFormat('node-fmt-guarded', { pattern: 'G-{seq:4}' }),
      { code: status.UNAUTHENTICATED });
    await assert.rejects(wrong.setFormat('node-fmt-guarded', { pattern: 'G-{seq:4}' }),
      { code: status.PERMISSION_DENIED });
  } finally {
    anonymous.close();
    wrong.close();
  }
});
