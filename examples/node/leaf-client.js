'use strict';
// A promise-based client for leaf.v1.LeafService, loaded at run time from the repository's proto.
// int64 fields arrive as strings (JavaScript numbers lose precision past 2^53) and are returned
// as BigInt. Failures reject with grpc-js errors: `err.code` is a grpc.status value.
// A token (the server's --admin-token or --client-token) is sent as `authorization: Bearer <token>`
// on every call; use TLS credentials with it, since the token is a password.
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO = path.join(__dirname, '..', '..', 'proto', 'leaf', 'v1', 'leaf.proto');

const definition = protoLoader.loadSync(PROTO, {
  keepCase: true,
  longs: String,
  defaults: true,
});
const { LeafService } = grpc.loadPackageDefinition(definition).leaf.v1;

class LeafClient {
  /**
   * @param {string} target host:port of a Leaf server
   * @param {{deadlineMs?: number, credentials?: grpc.ChannelCredentials, token?: string}} [options]
   */
  constructor(target, options = {}) {
    this.deadlineMs = options.deadlineMs ?? 10000;
    this.stub = new LeafService(target, options.credentials ?? grpc.credentials.createInsecure());
    this.metadata = new grpc.Metadata();
    if (options.token !== undefined) {
      this.metadata.set('authorization', `Bearer ${options.token}`);
    }
  }

  deadline() {
    return new Date(Date.now() + this.deadlineMs);
  }

  unary(method, request) {
    return new Promise((resolve, reject) => {
      this.stub[method](request, this.metadata, { deadline: this.deadline() }, (err, response) => {
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

  /** Creates a tag; maxId and step 0 mean the server's defaults (1 and 200). */
  async createTag(bizTag, { maxId = 0, step = 0, description = '' } = {}) {
    const tag = await this.unary('CreateTag', {
      biz_tag: bizTag,
      max_id: String(maxId),
      step,
      description,
    });
    return { ...tag, max_id: BigInt(tag.max_id), update_time: BigInt(tag.update_time) };
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

  /** The tag's database row and the server's cached segments. */
  getTag(bizTag) {
    return this.unary('GetTag', { biz_tag: bizTag });
  }

  close() {
    this.stub.close();
  }
}

module.exports = { LeafClient, status: grpc.status };
