'use strict';
// A promise-based client for leaf.v1.LeafService and leaf.v1.SnowflakeService, loaded at run time
// from the repository's proto.
// int64 fields arrive as strings (JavaScript numbers lose precision past 2^53) and are returned
// as BigInt; enums (a format's reset) as their names. Failures reject with grpc-js errors: `err.code` is a grpc.status value.
// A token (the server's --admin-token or --client-token) is sent as `authorization: Bearer <token>`
// on every call; use TLS credentials with it, since the token is a password.
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.join(__dirname, '..', '..', 'proto');

const definition = protoLoader.loadSync(['leaf/v1/leaf.proto', 'leaf/v1/snowflake.proto'], {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  includeDirs: [PROTO_ROOT],
});
const { LeafService, SnowflakeService } = grpc.loadPackageDefinition(definition).leaf.v1;

/** The IdFormat message of `{ pattern, reset = 'NEVER', timeZone = 'UTC' }`. */
function idFormat({ pattern, reset = 'NEVER', timeZone = 'UTC' }) {
  return { pattern, reset, time_zone: timeZone };
}

/** A Tag reply with its int64 fields as BigInt; `format` is null when the tag has none. */
function toTag(tag) {
  return { ...tag, max_id: BigInt(tag.max_id), update_time: BigInt(tag.update_time) };
}

class LeafClient {
  /**
   * @param {string} target host:port of a Leaf server
   * @param {{deadlineMs?: number, credentials?: grpc.ChannelCredentials, token?: string}} [options]
   */
  constructor(target, options = {}) {
    this.deadlineMs = options.deadlineMs ?? 10000;
    this.stub = new LeafService(target, options.credentials ?? grpc.credentials.createInsecure());
    // Shares the first stub's channel.
    this.snowflake = new SnowflakeService(target, null, { channelOverride: this.stub.getChannel() });
    this.metadata = new grpc.Metadata();
    if (options.token !== undefined) {
      this.metadata.set('authorization', `Bearer ${options.token}`);
    }
  }

  deadline() {
    return new Date(Date.now() + this.deadlineMs);
  }

  unary(method, request, stub = this.stub) {
    return new Promise((resolve, reject) => {
      stub[method](request, this.metadata, { deadline: this.deadline() }, (err, response) => {
        if (err) reject(err);
        else resolve(response);
      });
    });
  }

  /** Resolves once the channel is connected, or rejects after timeoutMs. */
  waitForReady(timeoutMs) {
    return new Promise((resolve, reject) => {
      this.stub.waitForReady(new Date(Date.now() + timeoutMs), (err) => (err ? reject(err) : resolve()));
    });
  }

  /**
   * Creates a tag; maxId and step 0 mean the server's defaults (1 and 200). `format` (optional,
   * `{ pattern, reset, timeZone }` as for setFormat) makes its numbers formatted strings.
   */
  async createTag(bizTag, { maxId = 0, step = 0, description = '', format } = {}) {
    const tag = await this.unary('CreateTag', {
      biz_tag: bizTag,
      max_id: String(maxId),
      step,
      description,
      format: format === undefined ? null : idFormat(format),
    });
    return toTag(tag);
  }

  /**
   * Sets or changes the tag's format (admin token): `pattern` such as
   * 'ORD-{yyyyMMdd}-{seq:6}{check:luhn}', `reset` 'NEVER' (default), 'DAILY', 'MONTHLY' or
   * 'YEARLY', `timeZone` an IANA name (default 'UTC'). Resolves to the tag, its `format` set.
   */
  async setFormat(bizTag, format) {
    return toTag(await this.unary('SetFormat', { biz_tag: bizTag, format: idFormat(format) }));
  }

  /** The tag's next formatted number, a string (FAILED_PRECONDITION when the tag has none). */
  async nextFormattedId(bizTag) {
    return (await this.unary('NextFormattedId', { biz_tag: bizTag })).value;
  }

  /** `count` formatted numbers from one NextFormattedIdBatch stream (chunks of at most chunkSize). */
  nextFormattedIds(bizTag, count, chunkSize = 0) {
    return new Promise((resolve, reject) => {
      const values = [];
      const call = this.stub.NextFormattedIdBatch(
        { biz_tag: bizTag, count, chunk_size: chunkSize },
        this.metadata,
        { deadline: this.deadline() },
      );
      call.on('data', (batch) => values.push(...batch.values));
      call.on('error', reject);
      call.on('end', () => resolve(values));
    });
  }

  /**
   * Reads a formatted number back: `{ period, sequence, checkValid }`, `sequence` a BigInt, or null
   * for an opaque number read without the admin token. INVALID_ARGUMENT when it does not match.
   */
  async parseFormattedId(bizTag, value) {
    const p = await this.unary('ParseFormattedId', { biz_tag: bizTag, value });
    const sequence = BigInt(p.sequence);
    return { period: p.period, sequence: sequence < 0n ? null : sequence, checkValid: p.check_valid };
  }

  /** One ID, as a BigInt. */
  async nextId(bizTag) {
    const response = await this.unary('NextId', { biz_tag: bizTag });
    return BigInt(response.id);
  }

  /** `count` IDs from one NextIdBatch stream (chunks of at most chunkSize), as BigInts. */
  nextIds(bizTag, count, chunkSize = 0) {
    return new Promise((resolve, reject) => {
      const ids = [];
      const call = this.stub.NextIdBatch(
        { biz_tag: bizTag, count, chunk_size: chunkSize },
        this.metadata,
        { deadline: this.deadline() },
      );
      call.on('data', (batch) => {
        for (const id of batch.ids) ids.push(BigInt(id));
      });
      call.on('error', reject);
      call.on('end', () => resolve(ids));
    });
  }

  /**
   * `count` IDs as at most 3 ascending, disjoint ranges the caller owns, each `{ start, end }`
   * (BigInt, start <= id < end).
   */
  async reserveIds(bizTag, count) {
    const reply = await this.unary('ReserveIds', { biz_tag: bizTag, count });
    return reply.ranges.map((r) => ({ start: BigInt(r.start), end: BigInt(r.end) }));
  }

  /** One snowflake ID (time-ordered, no tag), as a BigInt. */
  async nextSnowflakeId() {
    const response = await this.unary('NextSnowflakeId', {}, this.snowflake);
    return BigInt(response.id);
  }

  /** `count` snowflake IDs from one NextSnowflakeIdBatch stream, increasing, as BigInts. */
  nextSnowflakeIds(count, chunkSize = 0) {
    return new Promise((resolve, reject) => {
      const ids = [];
      const call = this.snowflake.NextSnowflakeIdBatch(
        { count, chunk_size: chunkSize },
        this.metadata,
        { deadline: this.deadline() },
      );
      call.on('data', (batch) => {
        for (const id of batch.ids) ids.push(BigInt(id));
      });
      call.on('error', reject);
      call.on('end', () => resolve(ids));
    });
  }

  /** The parts of a snowflake ID: `{ id, timestampMs, workerId, sequence }` (BigInt times). */
  async decodeSnowflakeId(id) {
    const p = await this.unary('DecodeSnowflakeId', { id: String(id) }, this.snowflake);
    return {
      id: BigInt(p.id), timestampMs: BigInt(p.timestamp_ms), workerId: p.worker_id, sequence: p.sequence,
    };
  }

  /** The server's worker lease and snowflake layout (worker_id -1 while it holds none). */
  getWorker() {
    return this.unary('GetWorker', {}, this.snowflake);
  }

  /** The tag's database row and the server's cached segments. */
  getTag(bizTag) {
    return this.unary('GetTag', { biz_tag: bizTag });
  }

  close() {
    this.stub.close();
  }
}

/**
 * IDs of one tag served from ranges reserved with ReserveIds: next() is synchronous while the
 * current range lasts, and the next reservation is fetched in the background once `refillAt`
 * (a fraction) of the current one is used, so a steady caller never waits. At most one fetch is
 * in flight. IDs still cached when the generator is dropped are lost (gaps, never repeats).
 */
class CachedIdGenerator {
  /**
   * @param {LeafClient} client
   * @param {string} bizTag
   * @param {{blockSize?: number, refillAt?: number}} [options]
   */
  constructor(client, bizTag, { blockSize = 1000, refillAt = 0.1 } = {}) {
    if (!(blockSize >= 1)) throw new RangeError(`blockSize must be at least 1, got ${blockSize}`);
    if (!(refillAt >= 0 && refillAt < 1)) throw new RangeError(`refillAt must be in [0, 1), got ${refillAt}`);
    this.client = client;
    this.bizTag = bizTag;
    this.blockSize = blockSize;
    this.refillAt = refillAt;
    this.ranges = []; // ranges not yet used up, in order; the first is the current one
    this.cursor = 0n; // next ID of ranges[0]
    this.leftInReservation = 0; // IDs of the reservation in use not yet handed out
    this.queued = 0; // IDs fetched but in no reservation started yet
    this.fetching = null; // the fetch in flight
    this.refills = 0;
  }

  /** The next ID (BigInt); waits only when every reserved range is used up. */
  async next() {
    const id = this.tryNext();
    if (id !== null) return id;
    await this.fetch();
    return this.next();
  }

  /** The next ID if one is cached, else null (and a fetch starts). */
  tryNext() {
    while (this.ranges.length > 0 && this.cursor >= this.ranges[0].end) {
      this.ranges.shift();
      if (this.ranges.length > 0) this.cursor = this.ranges[0].start;
    }
    if (this.ranges.length === 0) {
      this.fetch().catch(() => {}); // the caller that awaits fetch() sees the failure
      return null;
    }
    const id = this.cursor++;
    this.take();
    return id;
  }

  /** Counts one ID handed out; past the refill point of a reservation, fetches the next. */
  take() {
    if (this.leftInReservation === 0) {
      this.leftInReservation = this.blockSize;
      this.queued -= this.blockSize;
    }
    this.leftInReservation--;
    if (this.blockSize - this.leftInReservation === Math.floor(this.blockSize * this.refillAt) + 1) {
      this.fetch().catch(() => {});
    }
  }

  /** One ReserveIds at a time; a second caller shares the one in flight. */
  fetch() {
    if (this.fetching) return this.fetching;
    if (this.queued > 0) return Promise.resolve();
    this.refills++;
    this.fetching = this.client.reserveIds(this.bizTag, this.blockSize).then((ranges) => {
      if (this.ranges.length === 0) this.cursor = ranges[0].start;
      this.ranges.push(...ranges);
      this.queued += this.blockSize;
    }).finally(() => {
      this.fetching = null;
    });
    return this.fetching;
  }
}

module.exports = { LeafClient, CachedIdGenerator, status: grpc.status };
