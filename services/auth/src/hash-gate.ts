import { ServiceError } from '@chronicler/kit';

export interface HashGateOptions {
  /** Password checks running at once (each is one scrypt on libuv's thread pool). */
  concurrency: number;
  /** Checks waiting for a slot; one more is refused at once. */
  maxQueued: number;
  /**
   * Longest a check may wait for its slot: past it the caller is answered "busy" rather than
   * late, well inside the gateway's wait for the reply.
   */
  maxWaitMs: number;
  /** The Retry-After of a refusal. */
  retryAfterMs: number;
}

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

/**
 * Bounds the password hashing of one auth process. scrypt runs on the thread pool (four
 * threads by default) and needs 32 MiB and a core's worth of time per check, so a burst of
 * sign-ins, admitted or not, would otherwise queue there behind each other until every one
 * of them is past the gateway's deadline (504 for all). Here at most `concurrency` run, at most
 * `maxQueued` wait, and the rest are refused at once with `rate_limited` (429, Retry-After):
 * those who get in are answered in time, the others are told to come back.
 */
export class HashGate {
  private running = 0;
  private readonly queue: Waiter[] = [];

  constructor(private readonly opts: HashGateOptions) {}

  /** Runs `work` when a slot is free; throws `rate_limited` when the queue is full or the wait too long. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** Checks running and waiting now. */
  load(): { running: number; queued: number } {
    return { running: this.running, queued: this.queue.length };
  }

  private acquire(): Promise<void> {
    if (this.running < this.opts.concurrency) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.queue.length >= this.opts.maxQueued) return Promise.reject(this.busy());
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          reject(this.busy());
        }, this.opts.maxWaitMs),
      };
      this.queue.push(waiter);
    });
  }

  private release(): void {
    const next = this.queue.shift();
    // The slot passes straight to the next waiter: `running` stays as it is.
    if (next) next.start();
    else this.running -= 1;
  }

  private busy(): ServiceError {
    return new ServiceError('rate_limited', 'Too many sign-ins at once. Please try again in a moment.', {
      retryAfterMs: this.opts.retryAfterMs,
    });
  }
}
