import type { Coordination } from '@chronicler/kit';
import type { StreamGate, StreamingProviderName, StreamLease } from './types.ts';

export interface StreamGateOptions {
  /** A lease not extended for this long frees its slot (a crashed replica's streams). Default 30 s. */
  leaseMs?: number;
  /** How often a held lease is extended. Default a third of leaseMs. */
  heartbeatMs?: number;
  /** Called when a heartbeat fails (Redis away): the lease may lapse and the slot be given away. */
  onHeartbeatError?(error: unknown): void;
}

const semaphoreKey = (provider: StreamingProviderName): string => `speech:streams:${provider}`;

/**
 * Bounds concurrent live streams per provider across every replica (Deepgram allows 50 per
 * project): a counting semaphore on the coordination (Redis in the cluster, memory in
 * embedded mode), each lease kept alive by a heartbeat while its stream runs.
 */
export function createStreamGate(
  coord: Coordination,
  limits: Record<StreamingProviderName, number>,
  opts: StreamGateOptions = {},
): StreamGate {
  const leaseMs = opts.leaseMs ?? 30_000;
  const heartbeatMs = opts.heartbeatMs ?? Math.max(1, Math.floor(leaseMs / 3));
  return {
    async acquire(provider): Promise<StreamLease | null> {
      const lease = await coord.semaphores.acquire(semaphoreKey(provider), limits[provider], leaseMs);
      if (!lease) return null;
      const heartbeat = setInterval(() => {
        lease.extend(leaseMs).then(
          (held) => {
            // Lapsed (a long pause of this process): the slot may be someone else's now.
            if (!held) clearInterval(heartbeat);
          },
          (err: unknown) => opts.onHeartbeatError?.(err),
        );
      }, heartbeatMs);
      // The stream's socket keeps the process alive, not its bookkeeping.
      heartbeat.unref();
      let released: Promise<void> | null = null;
      return {
        release() {
          released ??= (async () => {
            clearInterval(heartbeat);
            await lease.release();
          })();
          return released;
        },
      };
    },
    async counts() {
      const [deepgram, assemblyai, openai] = await Promise.all([
        coord.semaphores.count(semaphoreKey('deepgram')),
        coord.semaphores.count(semaphoreKey('assemblyai')),
        coord.semaphores.count(semaphoreKey('openai')),
      ]);
      return { deepgram, assemblyai, openai };
    },
  };
}
