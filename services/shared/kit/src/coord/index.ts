import type { Logger } from '../logger.ts';
import { MemoryCoordination } from './memory.ts';
import { RedisCoordination } from './redis.ts';
import type { Coordination } from './types.ts';

export type {
  Cache,
  Coordination,
  Lock,
  LockManager,
  RateLimitAllResult,
  RateLimitHit,
  RateLimitResult,
  RateLimiter,
  SemaphoreLease,
  SemaphoreManager,
  WindowCount,
  WindowCounters,
} from './types.ts';
export { SyncedRateLimiter, type SyncedRateLimiterOptions } from './synced-rate-limiter.ts';
export { MemoryCoordination, type MemoryCoordinationOptions } from './memory.ts';
export { RedisCoordination, type RedisCoordinationOptions } from './redis.ts';

export interface CreateCoordinationOptions {
  /** Redis for the cluster (shared by replicas); memory when absent (embedded, one process). */
  redisUrl?: string;
  /** Key namespace in Redis, so deployments or test runs sharing a server stay apart. */
  prefix: string;
  logger?: Logger;
}

/**
 * Chooses by configuration alone: Redis when `redisUrl` is set, memory otherwise. Does not
 * wait for Redis: ioredis connects in the background and readiness (ping) reports it, so a
 * Redis that starts after the service is picked up without a restart.
 */
export async function createCoordination(opts: CreateCoordinationOptions): Promise<Coordination> {
  if (opts.redisUrl) {
    return new RedisCoordination({ redis: opts.redisUrl, prefix: opts.prefix, logger: opts.logger });
  }
  return new MemoryCoordination();
}
