import { ServiceError } from '@chronicler/kit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HashGate } from './hash-gate.ts';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function refusal(p: Promise<unknown>): Promise<ServiceError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  return err as ServiceError;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('HashGate', () => {
  it('runs at most `concurrency` at once, queues up to `maxQueued`, and refuses the next at once with rate_limited', async () => {
    const gate = new HashGate({ concurrency: 2, maxQueued: 1, maxWaitMs: 60_000, retryAfterMs: 1000 });
    const work = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = work.map((d, i) =>
      gate.run(async () => {
        started.push(i);
        await d.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(gate.load()).toEqual({ running: 2, queued: 1 });

    const err = await refusal(gate.run(async () => 'never'));
    expect(err.code).toBe('rate_limited');
    expect(err.details).toEqual({ retryAfterMs: 1000 });

    work[0]!.resolve();
    await runs[0];
    await vi.waitFor(() => expect(started).toEqual([0, 1, 2]));
    work[1]!.resolve();
    work[2]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(gate.load()).toEqual({ running: 0, queued: 0 });
  });

  it('refuses a waiter whose slot does not come within maxWaitMs, and frees its place', async () => {
    vi.useFakeTimers();
    const gate = new HashGate({ concurrency: 1, maxQueued: 1, maxWaitMs: 2000, retryAfterMs: 500 });
    const busy = deferred();
    const first = gate.run(() => busy.promise);
    const waiting = refusal(gate.run(async () => 'late'));
    vi.advanceTimersByTime(2001);
    expect((await waiting).code).toBe('rate_limited');
    expect(gate.load()).toEqual({ running: 1, queued: 0 });
    busy.resolve();
    await first;
    expect(await gate.run(async () => 'next')).toBe('next');
  });

  it('frees the slot when the work throws', async () => {
    const gate = new HashGate({ concurrency: 1, maxQueued: 0, maxWaitMs: 1000, retryAfterMs: 1000 });
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await gate.run(async () => 'ok')).toBe('ok');
  });
});
