import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { WINDOW_BUCKETS } from './validate.ts';

// The Lua scripts behind RedisCoordination: each step that must be atomic in Redis.

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

export const release = new LuaScript(RELEASE);
export const extend = new LuaScript(EXTEND);
export const hit = new LuaScript(HIT);
export const hitAll = new LuaScript(HIT_ALL);
export const semAcquire = new LuaScript(SEM_ACQUIRE);
export const semExtend = new LuaScript(SEM_EXTEND);
export const semRelease = new LuaScript(SEM_RELEASE);
export const semCount = new LuaScript(SEM_COUNT);
export const countAdd = new LuaScript(COUNT_ADD);
