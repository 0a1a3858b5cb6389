import pino from 'pino';
import type { Logger } from '../logger.ts';

/** A logger that drops everything, for buses created without one. */
export const silentLogger: Logger = pino({ enabled: false });

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : (JSON.stringify(err) ?? String(err));
}

// ---- bookkeeping -------------------------------------------------------------------

/**
 * Handlers still running, so that stop/close can wait for them. A count rather than a set of
 * promises: the hot path marks begin and end without allocating anything.
 */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.count;
  }

  begin(): void {
    this.count++;
  }

  /** A property, so it can be passed as a callback as it is. */
  readonly end = (): void => {
    if (--this.count > 0 || this.waiters.length === 0) return;
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  };

  /** Counts `p` until it settles; the caller handles its outcome, the returned copy only mirrors it. */
  track<T>(p: Promise<T>): Promise<T> {
    this.begin();
    const tracked = p.finally(this.end);
    tracked.catch(() => {});
    return tracked;
  }

  idle(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** `SHA-256=<base64url>` with padding, the format the NATS object store writes. */
export function formatDigest(sha256: Buffer): string {
  const b64 = sha256.toString('base64url');
  return `SHA-256=${b64}${'='.repeat((4 - (b64.length % 4)) % 4)}`;
}

/** A delay that stop() can cut short. */
export function interruptibleDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

/** Returned by every publish that went out: one promise for all of them, not one each. */
const SENT: Promise<void> = Promise.resolve();

/** A publish that went out, or the error it met, as the promise the Bus API returns. */
export function sent(err?: unknown): Promise<void> {
  return err === undefined ? SENT : Promise.reject(err);
}
