import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { createLogger, type Logger } from '../logger.ts';
import type {
  Cache,
  Coordination,
  Lock,
  LockManager,
  RateLimitAllResult,
  RateLimitResult,
  RateLimiter,
  SemaphoreLease,
  SemaphoreManager,
  WindowCounters,
} from './types.ts';
import { checkedCounts, checkedHits, positiveInteger, positiveMs, toJson } from './validate.ts';
import {
  countAdd,
  extend,
  hit,
  hitAll,
  release,
  semAcquire,
  semCount,
  semExtend,
  semRelease,
} from './redis-scripts.ts';

export interface RedisCoordinationOptions {
  /** A Redis URL (the client is created and owned: close() quits it) or a client the caller owns. */
  redis: string | Redis;
  /** Namespace of every key: `<prefix>:lock:<key>`, `<prefix>:rate:<key>`, `<prefix>:cache:<key>`. */
  prefix: string;
  logger?: Logger;
}

/** How long ping() waits for PONG before calling Redis unreachable (readiness must answer). */
const PING_TIMEOUT_MS = 2_000;

/**
 * Locks, rate limits and cache shared by every replica, on Redis. ioredis reconnects by
 * itself; while Redis is away, calls fail after a few retries instead of hanging (callers
 * decide whether to fail open or closed) and ping() answers false.
 */
export class RedisCoordination implements Coordination {
  readonly kind = 'redis' as const;
  readonly locks: LockManager;
  readonly rateLimiter: RateLimiter;
  readonly cache: Cache;
  readonly semaphores: SemaphoreManager;
  readonly windowCounters: WindowCounters;

  readonly #redis: Redis;
  readonly #ownsClient: boolean;
  readonly #prefix: string;
  readonly #unwatch: () => void;
  #closing: Promise<void> | undefined;

  constructor(opts: RedisCoordinationOptions) {
    if (!opts.prefix) throw new Error('RedisCoordination needs a non-empty key prefix');
    this.#prefix = opts.prefix;
    this.#ownsClient = typeof opts.redis === 'string';
    this.#redis =
      typeof opts.redis === 'string'
        ? new Redis(opts.redis, {
            // The default (20 reconnection attempts, tens of seconds) would hold a request
            // that needs a lock or a rate-limit answer far longer than it is worth waiting.
            maxRetriesPerRequest: 3,
            connectTimeout: 5_000,
            // Commands issued in the same tick (every request's rate-limit script, lock and
            // cache calls of concurrent requests) go out in one write and their replies come
            // back in one read. Safe here: this client sends no blocking or subscribe
            // commands, and each command still gets its own reply or error.
            enableAutoPipelining: true,
          })
        : opts.redis;
    this.#unwatch = watchConnection(this.#redis, opts.logger ?? createLogger('coord'));

    const redis = this.#redis;
    const lockKey = (key: string): string => `${this.#prefix}:lock:${key}`;

    this.locks = {
      async acquire(key, ttlMs) {
        const ttl = positiveMs('ttlMs', ttlMs);
        const token = randomUUID();
        const ok = await redis.set(lockKey(key), token, 'PX', ttl, 'NX');
        return ok === 'OK' ? new RedisLock(redis, key, lockKey(key), token) : null;
      },
    };

    this.rateLimiter = {
      hit: async (key, limit, windowMs): Promise<RateLimitResult> => {
        positiveInteger('limit', limit);
        const window = positiveMs('windowMs', windowMs);
        const reply = (await hit.run(redis, `${this.#prefix}:rate:${key}`, limit, window, randomUUID())) as [
          number,
          number,
          number,
        ];
        return { allowed: reply[0] === 1, remaining: reply[1], retryAfterMs: reply[2] };
      },
      hitAll: async (requested): Promise<RateLimitAllResult> => {
        const hits = checkedHits(requested);
        const reply = (await hitAll.runKeys(
          redis,
          hits.map((h) => `${this.#prefix}:rate:${h.key}`),
          [randomUUID(), ...hits.flatMap((h) => [h.limit, h.windowMs])],
        )) as [number, number, number, number];
        return {
          allowed: reply[0] === 1,
          remaining: reply[1],
          retryAfterMs: reply[2],
          refusedKey: reply[3] > 0 ? hits[reply[3] - 1]!.key : null,
        };
      },
    };

    const cacheKey = (key: string): string => `${this.#prefix}:cache:${key}`;
    this.cache = {
      async get<T>(key: string): Promise<T | undefined> {
        const json = await redis.get(cacheKey(key));
        return json === null ? undefined : (JSON.parse(json) as T);
      },
      async set(key, value, ttlMs) {
        const ttl = positiveMs('ttlMs', ttlMs);
        await redis.set(cacheKey(key), toJson(value), 'PX', ttl);
      },
      async del(key) {
        await redis.del(cacheKey(key));
      },
    };

    const semKey = (key: string): string => `${this.#prefix}:sem:${key}`;
    this.semaphores = {
      async acquire(key, limit, leaseMs): Promise<SemaphoreLease | null> {
        positiveInteger('limit', limit);
        const lease = positiveMs('leaseMs', leaseMs);
        const id = randomUUID();
        const redisKey = semKey(key);
        if ((await semAcquire.run(redis, redisKey, limit, lease, id)) !== 1) return null;
        return {
          key,
          id,
          extend: async (ms) => (await semExtend.run(redis, redisKey, positiveMs('leaseMs', ms), id)) === 1,
          release: async () => (await semRelease.run(redis, redisKey, id)) === 1,
        };
      },
      async count(key) {
        return Number(await semCount.run(redis, semKey(key)));
      },
    };

    this.windowCounters = {
      add: async (entries) => {
        const counts = checkedCounts(entries);
        if (counts.length === 0) return [];
        const totals = (await countAdd.runKeys(
          redis,
          counts.map((c) => `${this.#prefix}:count:${c.key}`),
          counts.flatMap((c) => [c.bucketMs, c.delta]),
        )) as number[];
        return totals.map(Number);
      },
    };
  }

  async ping(): Promise<boolean> {
    const redis = this.#redis;
    if (redis.status === 'end') return false;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), PING_TIMEOUT_MS);
    timer.unref();
    try {
      // Waiting for 'ready' (rather than queueing PING) bounds the wait: a command issued
      // while disconnected sits in ioredis's offline queue through several reconnection
      // attempts. once() rejects on the next connection 'error', so an outage answers fast.
      if (redis.status !== 'ready') await once(redis, 'ready', { signal: abort.signal });
      const reply = await Promise.race([redis.ping(), once(abort.signal, 'abort').then(() => 'timeout')]);
      return reply === 'PONG';
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  }

  /** Quits the client when this instance created it; a client passed in stays open. */
  close(): Promise<void> {
    this.#closing ??= this.#ownsClient ? shutDown(this.#redis) : Promise.resolve();
    // After shutDown: its QUIT may still emit connection events worth a listener.
    return this.#closing.finally(() => {
      if (!this.#ownsClient) this.#unwatch();
    });
  }
}

class RedisLock implements Lock {
  constructor(
    private readonly redis: Redis,
    readonly key: string,
    private readonly redisKey: string,
    readonly token: string,
  ) {}

  async release(): Promise<boolean> {
    return (await release.run(this.redis, this.redisKey, this.token)) === 1;
  }

  async extend(ttlMs: number): Promise<boolean> {
    const ttl = positiveMs('ttlMs', ttlMs);
    return (await extend.run(this.redis, this.redisKey, this.token, ttl)) === 1;
  }
}

/**
 * ioredis emits 'error' on every failed reconnection attempt and prints to the console when
 * nobody listens. Log the outage once and the recovery once, instead of a line per retry.
 */
function watchConnection(redis: Redis, logger: Logger): () => void {
  let down = false;
  const onError = (err: Error): void => {
    if (down) return;
    down = true;
    logger.warn({ err }, 'Redis unreachable; reconnecting');
  };
  const onReady = (): void => {
    if (!down) return;
    down = false;
    logger.info('Redis reachable again');
  };
  redis.on('error', onError);
  redis.on('ready', onReady);
  return () => {
    redis.off('error', onError);
    redis.off('ready', onReady);
  };
}

async function shutDown(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  if (redis.status === 'ready') {
    try {
      // QUIT lets replies already on the wire arrive before the connection closes.
      await redis.quit();
      return;
    } catch {
      // Connection dropped mid-quit: fall through and stop the reconnection loop.
    }
  }
  // Not connected: QUIT would wait in the offline queue for a connection that may never come.
  redis.disconnect();
}
