// TypeScript declarations of @leaf-ids/client.
import type {
  ChannelCredentials, credentials as grpcCredentials, status as grpcStatus,
} from '@grpc/grpc-js';

export type Reset = 'NEVER' | 'DAILY' | 'MONTHLY' | 'YEARLY';

/** What order a tag's IDs keep across servers (unspecified reads as PER_SERVER). */
export type Ordering = 'ORDERING_UNSPECIFIED' | 'PER_SERVER' | 'STRICT' | 'SCATTERED';

export interface IdFormat {
  /** e.g. 'ORD-{yyyyMMdd}-{seq:6}{check:luhn}' */
  pattern: string;
  reset?: Reset;
  /** an IANA zone name (default 'UTC') */
  timeZone?: string;
}

export interface Tag {
  biz_tag: string;
  max_id: bigint;
  step: number;
  description: string;
  update_time: bigint;
  format: { pattern: string; reset: Reset; time_zone: string } | null;
  ordering: Ordering;
  [field: string]: unknown;
}

export interface CreateTagOptions {
  maxId?: number | bigint | string;
  step?: number;
  description?: string;
  format?: IdFormat;
  /** default PER_SERVER; STRICT and SCATTERED return after the server's --tag-lease-ttl */
  ordering?: Ordering;
}

export interface LeafClientOptions {
  /** the whole call's deadline, failover included (default 10000) */
  deadlineMs?: number;
  /** TLS: credentials.createSsl(ca); default insecure */
  credentials?: ChannelCredentials;
  /** the server's --admin-token or --client-token, sent as `authorization: Bearer <token>` */
  token?: string;
  /** the longest one attempt waits while another target remains (default 2000) */
  failoverAfterMs?: number;
  /** how long a target found down is passed over (default 30000) */
  retryPreferredAfterMs?: number;
  /** a monotonic clock in milliseconds (default performance.now) */
  clock?: () => number;
  /** grpc-js channel options, e.g. a round_robin grpc.service_config */
  channelOptions?: Record<string, unknown>;
  /**
   * nextId, nextIds, nextFormattedId and nextFormattedIds on a STRICT tag go first to the owner a
   * server names in the `leaf-owner` header (HOST:PORT only), with this client's credentials and
   * token; one that fails is passed over for retryPreferredAfterMs. nextSequence never does.
   * Default false: only for servers whose advertised addresses you trust.
   */
  callOwners?: boolean;
}

export interface IdRange {
  /** the first ID (inclusive) */
  start: bigint;
  /** the end (exclusive) */
  end: bigint;
}

export interface SnowflakeParts {
  id: bigint;
  timestampMs: bigint;
  workerId: number;
  sequence: number;
}

/** A gRPC failure: `code` is a value of `status`. */
export interface LeafCallError extends Error {
  code: number;
  details: string;
}

export class LeafClient {
  /** `targets`: host:port, or several in order of preference (this region's first). */
  constructor(targets: string | string[], options?: LeafClientOptions);
  /** The target a call would try first now. */
  currentTarget(): string;
  waitForReady(timeoutMs: number): Promise<void>;
  createTag(bizTag: string, options?: CreateTagOptions): Promise<Tag>;
  createTag(options: CreateTagOptions & { bizTag: string }): Promise<Tag>;
  setFormat(bizTag: string, format: IdFormat): Promise<Tag>;
  /** Admin: PER_SERVER or STRICT; returns after the server's --tag-lease-ttl. */
  setOrdering(bizTag: string, ordering: Ordering): Promise<Tag>;
  /** The next value of `key`'s own sequence (from 1) on a STRICT tag; key: 1-128 bytes. */
  nextSequence(bizTag: string, key: string): Promise<bigint>;
  /** The sequence value an ID of a SCATTERED tag was made from. */
  decodeScatteredId(bizTag: string, id: bigint | string): Promise<bigint>;
  nextId(bizTag: string): Promise<bigint>;
  nextIds(bizTag: string, count: number, chunkSize?: number): Promise<bigint[]>;
  /** `count` IDs as at most 3 ascending, disjoint ranges the caller owns. */
  reserveIds(bizTag: string, count: number): Promise<IdRange[]>;
  nextFormattedId(bizTag: string): Promise<string>;
  nextFormattedIds(bizTag: string, count: number, chunkSize?: number): Promise<string[]>;
  parseFormattedId(bizTag: string, value: string):
    Promise<{ period: string; sequence: bigint | null; checkValid: boolean }>;
  nextSnowflakeId(): Promise<bigint>;
  nextSnowflakeIds(count: number, chunkSize?: number): Promise<bigint[]>;
  decodeSnowflakeId(id: bigint | string): Promise<SnowflakeParts>;
  /** A version 7 UUID: `value` canonical lower case, `ulid` the same bits in Crockford base32. */
  nextUuid(): Promise<{ value: string; ulid: string }>;
  /** `count` UUIDs (canonical) from one NextUuidBatch stream, increasing. */
  nextUuids(count: number, chunkSize?: number): Promise<string[]>;
  /** The parts of a UUID the server made (canonical or ULID). */
  decodeUuid(value: string): Promise<{ timestampMs: bigint; workerId: number }>;
  getWorker(): Promise<Record<string, unknown>>;
  getTag(bizTag: string): Promise<Record<string, unknown>>;
  close(): void;
}

export interface CachedIdGeneratorOptions {
  /** reserve again once this fraction of a reservation is used, in [0, 1) (default 0.1) */
  refillThreshold?: number;
  /** the smallest reservation, also the first (default 1000) */
  minBlockSize?: number;
  /** the largest reservation, at most 10,000,000 (default 1,000,000) */
  maxBlockSize?: number;
  /** how long a reservation should last at the current rate (default 5000) */
  targetRefillIntervalMs?: number;
  /** the longest next() waits when every reserved range is used up (default 5000) */
  maxWaitMs?: number;
  /** a monotonic clock in milliseconds (default performance.now) */
  clock?: () => number;
}

/** A CachedIdGenerator's failure: `code` the gRPC status code, `details` the server's reason. */
export class LeafIdError extends Error {
  code: number;
  details: string;
}

export class CachedIdGenerator {
  /** Resolves once the first reservation has arrived; a refusal rejects with a LeafIdError. */
  static create(client: LeafClient, bizTag: string, options?: CachedIdGeneratorOptions):
    Promise<CachedIdGenerator>;
  readonly bizTag: string;
  /** calls that found every reserved range used up and waited */
  readonly waits: number;
  /** reservations asked for */
  readonly refills: number;
  /** reservations that failed */
  readonly refillFailures: number;
  /** The next ID; rejects with a LeafIdError when the reservation it waited for failed. */
  next(): Promise<bigint>;
  /** Reserved IDs not handed out yet. */
  idsLeft(): number;
  /** The size of the next reservation. */
  blockSize(): number;
  /** Drops the cached IDs (gaps, never repeats); later next() calls reject. */
  close(): void;
}

/** Whether a grpc-js error is a lost connection (a call then moves to the next target). */
export function connectionLost(err: { code?: number; details?: string; message?: string }): boolean;

export const status: typeof grpcStatus;
export const credentials: typeof grpcCredentials;
