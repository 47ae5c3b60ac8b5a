'use strict';
// LeafClient: a promise-based client for leaf.v1.LeafService and leaf.v1.SnowflakeService,
// loaded at run time from the proto.
// int64 fields arrive as strings (JavaScript numbers lose precision past 2^53) and are returned
// as BigInt; enums (a format's reset) as their names. Failures reject with grpc-js errors:
// `err.code` is a grpc.status value. TLS: pass `credentials` (e.g. credentials.createSsl(ca)).
// A token (the server's --admin-token or --client-token) is sent as `authorization: Bearer <token>`
// on every call; use TLS credentials with it, since the token is a password.
// Given several targets (one per region, the caller's own first), a call moves to the next when
// one is unavailable or silent, and back once it recovers: the rules of the Java LeafClient.
// With `callOwners`, ID calls on a STRICT tag go to the owner a server named first (OwnerRoutes).
const fs = require('node:fs');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { OwnerRoutes } = require('./owner-routes');

// The packed package carries its own copy of the proto (copied by `npm pack`'s prepack step);
// inside the repository it is read from the repository's proto/ directory.
const PACKED_PROTO = path.join(__dirname, '..', 'proto');
const PROTO_ROOT = fs.existsSync(path.join(PACKED_PROTO, 'leaf', 'v1', 'leaf.proto'))
  ? PACKED_PROTO
  : path.join(__dirname, '..', '..', '..', 'proto');

const definition = protoLoader.loadSync(['leaf/v1/leaf.proto', 'leaf/v1/snowflake.proto'], {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  includeDirs: [PROTO_ROOT],
});
const { LeafService, SnowflakeService } = grpc.loadPackageDefinition(definition).leaf.v1;

/**
 * How grpc-js reports a connection closed or reset under a call, besides UNAVAILABLE ("Connection
 * dropped"): INTERNAL or UNKNOWN naming the reset stream ("Received RST_STREAM with code 2") or
 * the closed connection.
 */
const LOST_DETAILS = /connection dropped|rst_stream|stream removed|socket closed|connection reset|channel closed|econnreset|epipe/i;

/** Whether `err` (a grpc-js error) is a lost connection rather than a server's answer. */
function connectionLost(err) {
  if (err.code === grpc.status.UNAVAILABLE) return true;
  if (err.code !== grpc.status.INTERNAL && err.code !== grpc.status.UNKNOWN) return false;
  return LOST_DETAILS.test(err.details ?? err.message ?? '');
}

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
   * @param {string|string[]} targets host:port of a Leaf server, or several in order of preference
   *   (this region's first): calls go to the first that answers (see call())
   * @param {{deadlineMs?: number, credentials?: grpc.ChannelCredentials, token?: string,
   *   failoverAfterMs?: number, retryPreferredAfterMs?: number, clock?: () => number,
   *   channelOptions?: object, callOwners?: boolean}} [options]
   *   failoverAfterMs (2000): the longest one attempt waits while another target remains;
   *   retryPreferredAfterMs (30000): how long a target found down is passed over; clock: a
   *   monotonic clock in milliseconds for those marks (performance.now; a fake one in tests);
   *   channelOptions: grpc-js channel options, e.g. round_robin over a Kubernetes headless
   *   Service's pods: {'grpc.service_config': '{"loadBalancingConfig":[{"round_robin":{}}]}'};
   *   callOwners (false): nextId, nextIds, nextFormattedId and nextFormattedIds on a STRICT tag go
   *   first to the owner a server named in the `leaf-owner` header (HOST:PORT only), with this
   *   client's credentials and token: only for servers whose advertised addresses you trust.
   *   An owner that fails to answer within failoverAfterMs is passed over for
   *   retryPreferredAfterMs and the call goes on to the targets. nextSequence never does.
   */
  constructor(targets, options = {}) {
    const list = Array.isArray(targets) ? targets : [targets];
    if (list.length === 0) throw new RangeError('targets must not be empty');
    this.deadlineMs = options.deadlineMs ?? 10000;
    this.failoverAfterMs = options.failoverAfterMs ?? 2000;
    this.retryPreferredAfterMs = options.retryPreferredAfterMs ?? 30000;
    this.clock = options.clock ?? (() => performance.now());
    const credentials = options.credentials ?? grpc.credentials.createInsecure();
    this.routes = list.map((target) => {
      const stub = new LeafService(target, credentials, options.channelOptions ?? {});
      // The snowflake stub shares the target's channel.
      const snowflake = new SnowflakeService(target, null, { channelOverride: stub.getChannel() });
      return { target, stub, snowflake, downSince: null };
    });
    this.owners = options.callOwners ? new OwnerRoutes((address) => {
      const stub = new LeafService(address, credentials, options.channelOptions ?? {});
      return { stub, close: () => stub.close() };
    }, this.retryPreferredAfterMs, this.clock) : null;
    this.metadata = new grpc.Metadata();
    if (options.token !== undefined) {
      this.metadata.set('authorization', `Bearer ${options.token}`);
    }
  }

  /**
   * Runs `invoke(route, deadline)` (a promise of one RPC on that target) on the preferred target,
   * moving on as the Java LeafClient does: a target that answers UNAVAILABLE (refused, connection
   * lost, shutting down) or loses the call's connection (connectionLost), or is silent for
   * failoverAfterMs while another target remains, is
   * marked down and the call goes to the next, within the call's deadline (a repeated ID call is
   * a gap). A target marked down is tried last until retryPreferredAfterMs has passed, then first
   * again: calls move back once it answers. Without `failover` (CreateTag, SetFormat: they write a
   * tag's definition, which must land in the first target's database) only the first target is
   * tried. Rejects with the last attempt's error; any other status rejects at once.
   * With `ownerOf` (a tag) and callOwners, the tag's owner a server named is tried first, within
   * failoverAfterMs; one that does not answer is passed over and the call goes on to the targets.
   */
  async call(invoke, failover = true, ownerOf = null) {
    const start = performance.now();
    let last = null;
    const owner = failover && ownerOf !== null && this.owners !== null
      ? this.owners.ownerOf(ownerOf) : null;
    if (owner !== null) {
      const left = this.deadlineMs;
      const bound = Math.min(left, this.failoverAfterMs);
      try {
        const route = { target: owner.address, stub: owner.stub };
        return await invoke(route, new Date(Date.now() + bound));
      } catch (err) {
        // As for a target: silent past the bound counts only when time is left for the others.
        const down = connectionLost(err)
          || (err.code === grpc.status.DEADLINE_EXCEEDED && bound < left);
        if (!down) throw err;
        this.owners.unreachable(ownerOf, owner.address);
        last = err;
      }
    }
    const order = failover ? this.order() : [0];
    for (let k = 0; k < order.length; k++) {
      const route = this.routes[order[k]];
      const left = this.deadlineMs - (performance.now() - start);
      if (left <= 0) break;
      const another = failover && k + 1 < order.length;
      const bound = another ? Math.min(left, this.failoverAfterMs) : left;
      try {
        const result = await invoke(route, new Date(Date.now() + bound));
        route.downSince = null;
        return result;
      } catch (err) {
        // A lost connection loses at most the answer: a gap, never a repeat.
        const down = connectionLost(err)
          || (err.code === grpc.status.DEADLINE_EXCEEDED && bound < left);
        if (!down) throw err;
        route.downSince = this.clock();
        last = err;
        if (!another) break;
      }
    }
    if (last === null) {
      const err = new Error(`deadline of ${this.deadlineMs} ms passed before a target answered`);
      err.code = grpc.status.DEADLINE_EXCEEDED;
      throw err;
    }
    throw last;
  }

  /** Indexes of the targets in the order a call tries them: those not marked down first. */
  order() {
    const now = this.clock();
    const up = (r) => r.downSince === null || now - r.downSince >= this.retryPreferredAfterMs;
    const indexes = this.routes.map((_, i) => i);
    return [...indexes.filter((i) => up(this.routes[i])), ...indexes.filter((i) => !up(this.routes[i]))];
  }

  /** The target a call would try first now. */
  currentTarget() {
    return this.routes[this.order()[0]].target;
  }

  /**
   * One unary RPC through call(). `owned`: it issues IDs of `request.biz_tag`, a STRICT tag's
   * owner goes first and the owner its answer or error names is heard (with callOwners).
   */
  unary(method, request, { snowflake = false, failover = true, owned = false } = {}) {
    const tag = owned && this.owners !== null ? request.biz_tag : null;
    return this.call((route, deadline) => new Promise((resolve, reject) => {
      const stub = snowflake ? route.snowflake : route.stub;
      const call = stub[method](request, this.metadata, { deadline }, (err, response) => {
        if (err) {
          this.owners?.hear(tag, err.metadata);
          reject(err);
        } else {
          resolve(response);
        }
      });
      if (tag !== null) call.on('metadata', (headers) => this.owners?.hear(tag, headers));
    }), failover, tag);
  }

  /**
   * Every message of a server stream, through call(); `take(message, into)` collects them.
   * `owned` as for unary().
   */
  stream(method, request, take, { snowflake = false, owned = false } = {}) {
    const tag = owned && this.owners !== null ? request.biz_tag : null;
    return this.call((route, deadline) => new Promise((resolve, reject) => {
      const into = [];
      const stub = snowflake ? route.snowflake : route.stub;
      const call = stub[method](request, this.metadata, { deadline });
      if (tag !== null) call.on('metadata', (headers) => this.owners?.hear(tag, headers));
      call.on('data', (message) => take(message, into));
      call.on('error', (err) => {
        this.owners?.hear(tag, err.metadata);
        reject(err);
      });
      call.on('end', () => resolve(into));
    }), true, tag);
  }

  /** Resolves once the first target's channel is connected, or rejects after timeoutMs. */
  waitForReady(timeoutMs) {
    return new Promise((resolve, reject) => {
      this.routes[0].stub.waitForReady(new Date(Date.now() + timeoutMs), (err) => (err ? reject(err) : resolve()));
    });
  }

  /**
   * Creates a tag; maxId and step 0 mean the server's defaults (1 and 200). `format` (optional,
   * `{ pattern, reset, timeZone }` as for setFormat) makes its numbers formatted strings.
   * `ordering` (optional): 'PER_SERVER' (the default), 'STRICT' or 'SCATTERED'; a STRICT or
   * SCATTERED tag's creation returns after the server's --tag-lease-ttl.
   * Always on the first target: it writes to that target's database. Also takes one object,
   * `createTag({ bizTag, maxId, step, description, format, ordering })`.
   */
  async createTag(bizTag, options = {}) {
    if (bizTag !== null && typeof bizTag === 'object') return this.createTag(bizTag.bizTag, bizTag);
    const {
      maxId = 0, step = 0, description = '', format, ordering = 'ORDERING_UNSPECIFIED',
    } = options;
    const tag = await this.unary('CreateTag', {
      biz_tag: bizTag,
      max_id: String(maxId),
      step,
      description,
      format: format === undefined ? null : idFormat(format),
      ordering,
    }, { failover: false });
    return toTag(tag);
  }

  /**
   * Sets or changes the tag's format (admin token): `pattern` such as
   * 'ORD-{yyyyMMdd}-{seq:6}{check:luhn}', `reset` 'NEVER' (default), 'DAILY', 'MONTHLY' or
   * 'YEARLY', `timeZone` an IANA name (default 'UTC'). Resolves to the tag, its `format` set.
   * Always on the first target, as createTag.
   */
  async setFormat(bizTag, format) {
    return toTag(await this.unary('SetFormat', { biz_tag: bizTag, format: idFormat(format) },
      { failover: false }));
  }

  /**
   * Sets the tag's ordering (admin token): 'PER_SERVER' or 'STRICT' (to or from 'SCATTERED' is
   * FAILED_PRECONDITION). Resolves to the tag once every server's knowledge of the former ordering
   * has expired (the server's --tag-lease-ttl). Always on the first target, as createTag.
   */
  async setOrdering(bizTag, ordering) {
    return toTag(await this.unary('SetOrdering', { biz_tag: bizTag, ordering },
      { failover: false }));
  }

  /**
   * The next value of `key`'s own sequence on a STRICT tag, as a BigInt: from 1, strictly
   * increasing in real time across servers (gaps allowed); `key` 1-128 bytes of UTF-8.
   * NOT_FOUND for an unknown tag, FAILED_PRECONDITION on a tag that is not STRICT. Always to the
   * targets, even with callOwners: a sequence's keys may be served by several servers.
   */
  async nextSequence(bizTag, key) {
    const response = await this.unary('NextSequence', { biz_tag: bizTag, key });
    return BigInt(response.value);
  }

  /**
   * The sequence value an ID of the SCATTERED tag was made from, as a BigInt (what WhoIssued
   * takes). NOT_FOUND for an unknown tag, FAILED_PRECONDITION on a tag that is not SCATTERED,
   * INVALID_ARGUMENT for an ID that is not positive.
   */
  async decodeScatteredId(bizTag, id) {
    const p = await this.unary('DecodeScatteredId', { biz_tag: bizTag, id: String(id) });
    return BigInt(p.sequence);
  }

  /** The tag's next formatted number, a string (FAILED_PRECONDITION when the tag has none). */
  async nextFormattedId(bizTag) {
    return (await this.unary('NextFormattedId', { biz_tag: bizTag }, { owned: true })).value;
  }

  /** `count` formatted numbers from one NextFormattedIdBatch stream (chunks of at most chunkSize). */
  nextFormattedIds(bizTag, count, chunkSize = 0) {
    return this.stream('NextFormattedIdBatch', { biz_tag: bizTag, count, chunk_size: chunkSize },
      (batch, values) => values.push(...batch.values), { owned: true });
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
    const response = await this.unary('NextId', { biz_tag: bizTag }, { owned: true });
    return BigInt(response.id);
  }

  /** `count` IDs from one NextIdBatch stream (chunks of at most chunkSize), as BigInts. */
  nextIds(bizTag, count, chunkSize = 0) {
    return this.stream('NextIdBatch', { biz_tag: bizTag, count, chunk_size: chunkSize },
      (batch, ids) => { for (const id of batch.ids) ids.push(BigInt(id)); }, { owned: true });
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
    const response = await this.unary('NextSnowflakeId', {}, { snowflake: true });
    return BigInt(response.id);
  }

  /** `count` snowflake IDs from one NextSnowflakeIdBatch stream, increasing, as BigInts. */
  nextSnowflakeIds(count, chunkSize = 0) {
    return this.stream('NextSnowflakeIdBatch', { count, chunk_size: chunkSize },
      (batch, ids) => { for (const id of batch.ids) ids.push(BigInt(id)); }, { snowflake: true });
  }

  /** The parts of a snowflake ID: `{ id, timestampMs, workerId, sequence }` (BigInt times). */
  async decodeSnowflakeId(id) {
    const p = await this.unary('DecodeSnowflakeId', { id: String(id) }, { snowflake: true });
    return {
      id: BigInt(p.id), timestampMs: BigInt(p.timestamp_ms), workerId: p.worker_id, sequence: p.sequence,
    };
  }

  /**
   * One version 7 UUID (RFC 9562), time-ordered and never shared by two servers:
   * `{ value, ulid }`, `value` canonical lower case, `ulid` the same bits in Crockford base32.
   */
  async nextUuid() {
    const u = await this.unary('NextUuid', {}, { snowflake: true });
    return { value: u.value, ulid: u.ulid };
  }

  /** `count` UUIDs (canonical) from one NextUuidBatch stream, in increasing order. */
  nextUuids(count, chunkSize = 0) {
    return this.stream('NextUuidBatch', { count, chunk_size: chunkSize },
      (batch, values) => values.push(...batch.values), { snowflake: true });
  }

  /** The parts of a UUID the server made (canonical or ULID): `{ timestampMs, workerId }`. */
  async decodeUuid(value) {
    const p = await this.unary('DecodeUuid', { value }, { snowflake: true });
    return { timestampMs: BigInt(p.timestamp_ms), workerId: p.worker_id };
  }

  /** The server's worker lease and snowflake layout (worker_id -1 while it holds none). */
  getWorker() {
    return this.unary('GetWorker', {}, { snowflake: true });
  }

  /** The tag's database row and the server's cached segments. */
  getTag(bizTag) {
    return this.unary('GetTag', { biz_tag: bizTag });
  }

  close() {
    if (this.owners !== null) this.owners.close();
    for (const route of this.routes) route.stub.close();
  }
}

module.exports = {
  LeafClient, connectionLost, status: grpc.status, credentials: grpc.credentials,
};
