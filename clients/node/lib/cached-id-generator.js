'use strict';
// CachedIdGenerator: IDs of one business tag served from ranges reserved with ReserveIds, with
// the rules of the Java client's CachedIdGenerator.
//
// The caller owns every ID of a reserved range, so next() is one BigInt increment and one bounds
// check while the current range lasts. Once a fraction (refillThreshold, default 0.1) of a
// reservation is used, the next one is fetched in the background, so a steady caller never waits.
// Bounds: at most one ReserveIds in flight and at most one reservation queued; a reservation is
// sized to last about targetRefillIntervalMs at the rate the previous one was used, within
// [minBlockSize, maxBlockSize]; a caller that finds every reserved range used up waits at most
// maxWaitMs. JavaScript runs one callback at a time, so the increment needs no lock and no ID is
// handed out twice. IDs still cached at close() (or when the process ends) are lost: gaps, never
// repeats. When the server refuses (a tag that does not exist, a missing token, an outage with no
// IDs left), the callers waiting for that reservation are rejected with a LeafIdError naming the
// tag, carrying the gRPC `code` and the server's `details`.

/** The server's default limit on one ReserveIds (--max-batch). */
const SERVER_MAX_BATCH = 10000000;

/** A failure of the generator: `code` is the gRPC status code (a number), as grpc-js errors. */
class LeafIdError extends Error {
  constructor(message, code, details, cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'LeafIdError';
    this.code = code;
    this.details = details;
  }
}

// gRPC status codes used here (the values of grpc.status).
const DEADLINE_EXCEEDED = 4;
const CANCELLED = 1;
const INTERNAL = 13;

function checkOptions(o) {
  const {
    refillThreshold = 0.1, minBlockSize = 1000, maxBlockSize = 1000000,
    targetRefillIntervalMs = 5000, maxWaitMs = 5000, clock = () => performance.now(),
  } = o;
  if (!(refillThreshold >= 0 && refillThreshold < 1)) {
    throw new RangeError(`refillThreshold must be in [0, 1), got ${refillThreshold}`);
  }
  if (!Number.isInteger(maxBlockSize) || maxBlockSize < 1 || maxBlockSize > SERVER_MAX_BATCH) {
    throw new RangeError(
      `maxBlockSize must be an integer from 1 to ${SERVER_MAX_BATCH}, got ${maxBlockSize}`);
  }
  if (!Number.isInteger(minBlockSize) || minBlockSize < 1 || minBlockSize > maxBlockSize) {
    throw new RangeError(`minBlockSize must be an integer from 1 to maxBlockSize (${maxBlockSize}),`
      + ` got ${minBlockSize}`);
  }
  const durations = [['targetRefillIntervalMs', targetRefillIntervalMs], ['maxWaitMs', maxWaitMs]];
  for (const [name, v] of durations) {
    if (!(v > 0)) throw new RangeError(`${name} must be positive, got ${v}`);
  }
  return { refillThreshold, minBlockSize, maxBlockSize, targetRefillIntervalMs, maxWaitMs, clock };
}

class CachedIdGenerator {
  /**
   * A generator for `bizTag` fetching through `client` (which it does not close); resolves once
   * its first reservation has arrived, so a refusal (NOT_FOUND, PERMISSION_DENIED, …) surfaces
   * here as a LeafIdError.
   */
  static async create(client, bizTag, options = {}) {
    const generator = new CachedIdGenerator(client, bizTag, options);
    try {
      await generator.fetch();
    } catch (err) {
      generator.close();
      throw err;
    }
    return generator;
  }

  /** Use create(): the constructor starts nothing. */
  constructor(client, bizTag, options = {}) {
    if (client === null || typeof client !== 'object' || typeof client.reserveIds !== 'function') {
      throw new TypeError('client must be a LeafClient (an object with reserveIds)');
    }
    if (typeof bizTag !== 'string' || bizTag.length === 0) {
      throw new TypeError(`bizTag must be a non-empty string, got ${bizTag}`);
    }
    this.client = client;
    this.bizTag = bizTag;
    this.options = checkOptions(options);
    this.size = this.options.minBlockSize; // the size of the next reservation
    // The reservation in use: its ranges, the index of the current one, its start, its size.
    this.ranges = [];
    this.rangeIndex = 0;
    this.cursor = 0n; // the next ID of the current range
    this.end = 0n; // the end (exclusive) of the current range
    this.refillId = -1n; // the ID whose hand-out asks for the next reservation
    this.inUse = null; // { size, startedAt } of the reservation in use
    this.queued = null; // { ranges, size }: at most one reservation waiting
    this.fetching = null; // the ReserveIds in flight
    this.closed = false;
    this.waiters = []; // callers waiting for a reservation, in order (a queue from waiterHead)
    this.waiterHead = 0;
    this.waits = 0;
    this.refills = 0;
    this.refillFailures = 0;
    this.idsReserved = 0;
  }

  /** The next ID of the tag, a BigInt; waits only when every reserved range is used up. */
  next() {
    if (this.cursor < this.end) {
      const id = this.cursor++;
      if (id === this.refillId) this.fetch().catch(() => {}); // a waiting caller sees a failure
      return Promise.resolve(id);
    }
    return this.slow();
  }

  /** The current range is used up: the next cached ID, or a place in the queue of waiters. */
  slow() {
    if (this.closed) return Promise.reject(this.closedError());
    const id = this.take();
    if (id !== null) return Promise.resolve(id);
    this.waits++;
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject, timer: null, done: false };
      waiter.timer = setTimeout(() => {
        waiter.done = true;
        reject(new LeafIdError(`no IDs for biz_tag ${this.bizTag} within`
          + ` ${this.options.maxWaitMs} ms (a reservation of ${this.size} IDs still being fetched)`,
        DEADLINE_EXCEEDED, ''));
      }, this.options.maxWaitMs);
      this.waiters.push(waiter);
      this.fetch().catch(() => {}); // its failure rejects the waiters (failWaiters)
    });
  }

  /** The next cached ID (moving through ranges and the queued reservation), or null. */
  take() {
    for (;;) {
      if (this.cursor < this.end) {
        const id = this.cursor++;
        if (id === this.refillId) this.fetch().catch(() => {});
        return id;
      }
      if (!this.advance()) return null;
    }
  }

  /** A reservation arrived: hands IDs to the waiters in the order they came. */
  serveWaiters() {
    while (this.waiterHead < this.waiters.length) {
      const waiter = this.waiters[this.waiterHead];
      if (!waiter.done) {
        const id = this.take();
        if (id === null) break;
        waiter.done = true;
        clearTimeout(waiter.timer);
        waiter.resolve(id);
      }
      this.waiters[this.waiterHead++] = undefined;
    }
    this.compactWaiters();
    if (this.waiterHead < this.waiters.length) this.fetch().catch(() => {});
  }

  /** Rejects every waiting caller with `err`: the fetch they waited for failed, or close(). */
  failWaiters(err) {
    const waiting = this.waiters.slice(this.waiterHead);
    this.waiters = [];
    this.waiterHead = 0;
    for (const waiter of waiting) {
      if (waiter.done) continue;
      waiter.done = true;
      clearTimeout(waiter.timer);
      waiter.reject(err);
    }
  }

  compactWaiters() {
    if (this.waiterHead === this.waiters.length) {
      this.waiters = [];
      this.waiterHead = 0;
    } else if (this.waiterHead > 1024 && this.waiterHead * 2 > this.waiters.length) {
      this.waiters = this.waiters.slice(this.waiterHead);
      this.waiterHead = 0;
    }
  }

  /** The current range is used up: moves to the next range or the queued reservation. */
  advance() {
    if (this.rangeIndex + 1 < this.ranges.length) {
      this.rangeIndex++;
      this.cursor = this.ranges[this.rangeIndex].start;
      this.end = this.ranges[this.rangeIndex].end;
      return true;
    }
    const now = this.options.clock();
    if (this.inUse !== null) {
      this.resize(this.inUse.size, now - this.inUse.startedAt);
      this.inUse = null;
    }
    if (this.queued === null) return false;
    const { ranges, size } = this.queued;
    this.queued = null;
    this.inUse = { size, startedAt: now };
    this.ranges = ranges;
    this.rangeIndex = 0;
    this.cursor = ranges[0].start;
    this.end = ranges[0].end;
    this.refillId = idAt(ranges, Math.floor(size * this.options.refillThreshold));
    return true;
  }

  /** A reservation of `length` IDs lasted `lifetimeMs`: sizes the next one (BlockSizer's rule). */
  resize(length, lifetimeMs) {
    const { minBlockSize, maxBlockSize, targetRefillIntervalMs } = this.options;
    const wanted = lifetimeMs <= 0
      ? maxBlockSize
      : Math.ceil(length * targetRefillIntervalMs / lifetimeMs);
    this.size = Math.max(minBlockSize, Math.min(maxBlockSize, wanted));
  }

  /**
   * Starts one ReserveIds unless one is in flight or a reservation is queued; resolves once the
   * reservation is queued, rejects with a LeafIdError when it fails.
   */
  fetch() {
    if (this.fetching !== null) return this.fetching;
    if (this.queued !== null || this.closed) return Promise.resolve();
    const size = this.size;
    this.refills++;
    const request = Promise.resolve().then(() => this.client.reserveIds(this.bizTag, size));
    this.fetching = request.then((ranges) => {
      this.fetching = null;
      if (this.closed) return;
      checkRanges(ranges, size, this.bizTag);
      this.queued = { ranges, size };
      this.idsReserved += size;
      this.serveWaiters();
    }).catch((err) => {
      this.fetching = null;
      this.refillFailures++;
      const failure = err instanceof LeafIdError ? err : new LeafIdError(
        `reserving ${size} IDs of biz_tag ${this.bizTag} failed: ${err.message}`,
        typeof err.code === 'number' ? err.code : INTERNAL, err.details ?? err.message, err);
      this.failWaiters(failure);
      throw failure;
    });
    this.fetching.catch(() => {}); // a background refill's failure reaches the callers that wait
    return this.fetching;
  }

  /** How many reserved IDs are cached and not handed out yet. */
  idsLeft() {
    let left = this.end > this.cursor ? this.end - this.cursor : 0n;
    for (let i = this.rangeIndex + 1; i < this.ranges.length; i++) {
      left += this.ranges[i].end - this.ranges[i].start;
    }
    return Number(left) + (this.queued === null ? 0 : this.queued.size);
  }

  /** The number of IDs the next reservation asks for. */
  blockSize() {
    return this.size;
  }

  closedError() {
    return new LeafIdError(`CachedIdGenerator for ${this.bizTag} is closed`, CANCELLED, 'closed');
  }

  /** Drops the cached IDs; waiting and later next() calls reject. Idempotent. */
  close() {
    if (this.closed) return;
    this.closed = true;
    this.ranges = [];
    this.cursor = 0n;
    this.end = 0n;
    this.queued = null;
    this.failWaiters(this.closedError());
  }
}

/** The ID at `offset` across the ascending `ranges`. */
function idAt(ranges, offset) {
  let left = BigInt(offset);
  for (const r of ranges) {
    const length = r.end - r.start;
    if (left < length) return r.start + left;
    left -= length;
  }
  return -1n;
}

/** A reply must be ascending, disjoint, non-empty ranges of exactly `size` IDs. */
function checkRanges(ranges, size, bizTag) {
  let total = 0n;
  let previousEnd = null;
  for (const r of ranges) {
    const ok = typeof r.start === 'bigint' && typeof r.end === 'bigint' && r.start < r.end
      && (previousEnd === null || r.start >= previousEnd);
    if (!ok) {
      throw new LeafIdError(`ReserveIds for biz_tag ${bizTag} returned malformed ranges`,
        INTERNAL, 'ranges');
    }
    total += r.end - r.start;
    previousEnd = r.end;
  }
  if (ranges.length === 0 || total !== BigInt(size)) {
    throw new LeafIdError(`ReserveIds for biz_tag ${bizTag} returned ${total} IDs, asked ${size}`,
      INTERNAL, 'ranges');
  }
}

module.exports = { CachedIdGenerator, LeafIdError, SERVER_MAX_BATCH };
