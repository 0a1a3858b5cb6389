import { createHash, randomUUID } from 'node:crypto';
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
import {
  checkedCounts,
  checkedHits,
  positiveInteger,
  positiveMs,
  toJson,
  WINDOW_BUCKETS,
} from './validate.ts';

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
 * Compare-and-delete: a holder whose lock expired and was taken by someone else must not
 * delete the new holder's key, so the token is checked in the same atomic step.
 */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/** Compare-and-pexpire, for the same reason as RELEASE. */
const EXTEND = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;

/**
 * Exact sliding window over a sorted set of allowed hits scored by time. The clock is the
 * server's (TIME), so replicas with skewed clocks still agree on one window. Refused hits
 * are not added. When full, the wait is until enough old hits leave for one more to fit
 * (normally just the oldest; more when the limit was lowered since they were recorded).
 * ARGV: limit, windowMs, a unique member for this hit.
 */
const HIT = `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, limit - count - 1, 0}
end
local freeing = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
local wait = math.ceil(tonumber(freeing[2]) + window - now)
if wait < 1 then wait = 1 end
return {0, 0, wait}`;

/**
 * HIT over several keys in one atomic step (one round trip for a request held to several
 * limits): every window is trimmed and checked first, and the hit is added to all of them
 * only when each has room, so a refused request counts against none. Answers the smallest
 * remaining, or the longest wait and the 1-based index of the first refusing key.
 * KEYS: the windows. ARGV: a unique member for this hit, then limit and windowMs per key.
 */
const HIT_ALL = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local remaining = -1
local wait = 0
local refused = 0
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[2 * i])
  local window = tonumber(ARGV[2 * i + 1])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  if count < limit then
    if remaining < 0 or limit - count - 1 < remaining then remaining = limit - count - 1 end
  else
    local freeing = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
    local w = math.ceil(tonumber(freeing[2]) + window - now)
    if w < 1 then w = 1 end
    if w > wait then wait = w end
    if refused == 0 then refused = i end
  end
end
if refused > 0 then return {0, 0, wait, refused} end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[1])
  redis.call('PEXPIRE', key, ARGV[2 * i + 1])
end
return {1, remaining, 0, 0}`;

/**
 * WindowCounters: per key a hash of bucket index (server time / bucket length) -> hits. Adds
 * each delta to the current bucket, drops buckets older than the window, returns each key's
 * total. The key expires a window after its last write. ARGV: per key, bucket ms and delta.
 */
const COUNT_ADD = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local totals = {}
for i, key in ipairs(KEYS) do
  local bucket = tonumber(ARGV[2 * i - 1])
  local delta = tonumber(ARGV[2 * i])
  local current = math.floor(now / bucket)
  if delta > 0 then
    redis.call('HINCRBY', key, current, delta)
    redis.call('PEXPIRE', key, bucket * ${WINDOW_BUCKETS})
  end
  local fields = redis.call('HGETALL', key)
  local total = 0
  for j = 1, #fields, 2 do
    if tonumber(fields[j]) > current - ${WINDOW_BUCKETS} then
      total = total + tonumber(fields[j + 1])
    else
      redis.call('HDEL', key, fields[j])
    end
  end
  totals[i] = total
end
return totals`;

/**
 * Counting semaphore over a sorted set of lease ids scored by their expiry on the server's
 * clock (TIME), so replicas with skewed clocks agree. Expired leases are dropped, the count
 * checked and the lease added in one atomic step, so concurrent acquirers never overshoot.
 * The key itself lives as long as its longest lease, so an abandoned key disappears.
 * ARGV: limit, leaseMs, the lease id.
 */
const SEM_PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)`;

const SEM_KEEP_KEY = `
if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end`;

const SEM_ACQUIRE = `${SEM_PRELUDE}
local limit = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])
if redis.call('ZCARD', KEYS[1]) >= limit then return 0 end
redis.call('ZADD', KEYS[1], now + lease, ARGV[3])${SEM_KEEP_KEY}
return 1`;

/** ARGV: leaseMs, the lease id. Only a lease that has not expired can be extended. */
const SEM_EXTEND = `${SEM_PRELUDE}
local lease = tonumber(ARGV[1])
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + lease, ARGV[2])${SEM_KEEP_KEY}
return 1`;

/** ARGV: the lease id. An expired lease counts as already gone. */
const SEM_RELEASE = `${SEM_PRELUDE}
return redis.call('ZREM', KEYS[1], ARGV[1])`;

const SEM_COUNT = `${SEM_PRELUDE}
return redis.call('ZCARD', KEYS[1])`;

/**
 * Runs a Lua script by SHA (EVALSHA), loading it with EVAL the first time a server has not
 * seen it (a restart or failover empties the script cache), so scripts travel once.
 */
class LuaScript {
  readonly #sha: string;
  constructor(private readonly source: string) {
    this.#sha = createHash('sha1').update(source).digest('hex');
  }

  run(redis: Redis, key: string, ...args: (string | number)[]): Promise<unknown> {
    return this.runKeys(redis, [key], args);
  }

  async runKeys(redis: Redis, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.#sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

const release = new LuaScript(RELEASE);
const extend = new LuaScript(EXTEND);
const hit = new LuaScript(HIT);
const hitAll = new LuaScript(HIT_ALL);
const semAcquire = new LuaScript(SEM_ACQUIRE);
const semExtend = new LuaScript(SEM_EXTEND);
const semRelease = new LuaScript(SEM_RELEASE);
const semCount = new LuaScript(SEM_COUNT);
const countAdd = new LuaScript(COUNT_ADD);

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
