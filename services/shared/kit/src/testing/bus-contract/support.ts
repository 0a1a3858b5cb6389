import {
  ROOT_CONTEXT,
  context,
  isSpanContextValid,
  propagation,
  trace,
  type Context,
  type ContextManager,
  type TextMapPropagator,
} from '@opentelemetry/api';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { expect } from 'vitest';
import { ServiceError } from '../../errors.ts';
import type { Bus } from '../../bus/types.ts';

/** `tracing`: spans and trace headers per message (false unless a test asks, as without a tracer). */
export type MakeBus = (opts: { prefix: string; dataDir?: string; tracing?: boolean }) => Promise<Bus>;

/** What each part of the suite gets: a new bus (closed after the test) and a gate that opens by then. */
export interface Harness {
  newBus(prefix?: string, opts?: { tracing?: boolean }): Promise<Bus>;
  gate(): Deferred<void>;
}

export const uniquePrefix = (): string => `t${randomBytes(5).toString('hex')}`;

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Collects what handlers see and lets a test await "n items arrived" instead of sleeping. */
export class Collector<T> {
  readonly items: T[] = [];
  private waiters: { done: (items: T[]) => boolean; resolve: () => void }[] = [];

  push = (item: T): void => {
    this.items.push(item);
    this.waiters = this.waiters.filter((w) => {
      if (!w.done(this.items)) return true;
      w.resolve();
      return false;
    });
  };

  waitFor(n: number, timeoutMs = 10_000): Promise<T[]> {
    return this.waitUntil((items) => items.length >= n, timeoutMs, `${n} items`);
  }

  waitUntil(done: (items: T[]) => boolean, timeoutMs = 10_000, what = 'the expected items'): Promise<T[]> {
    if (done(this.items)) return Promise.resolve(this.items);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`waited ${timeoutMs} ms for ${what}, got ${JSON.stringify(this.items)}`));
      }, timeoutMs);
      const waiter = {
        done,
        resolve: () => {
          clearTimeout(timer);
          resolve(this.items);
        },
      };
      this.waiters.push(waiter);
    });
  }
}

/** Sum of a metric's samples whose labels include `labels` (metrics are process-wide: compare deltas). */
export async function metricValue(
  metric: {
    get(): Promise<{ values: { value: number; labels: Record<string, unknown>; metricName?: string }[] }>;
  },
  labels: Record<string, string>,
  metricName?: string,
): Promise<number> {
  const { values } = await metric.get();
  return values
    .filter((v) => metricName === undefined || v.metricName === metricName)
    .filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))
    .reduce((sum, v) => sum + v.value, 0);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves with the ServiceError a promise rejects with (fails the test if it resolves). */
export async function serviceErrorOf(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ServiceError);
    return err as ServiceError;
  }
  throw new Error('expected a ServiceError, but the call succeeded');
}

/**
 * A request/reply round trip through the bus. Both buses deliver in order per connection,
 * so once it returns, every message published on this bus before it has been handed to
 * its subscribers: a deterministic "nothing else is coming" for negative assertions.
 */
export async function roundTrip(bus: Bus): Promise<void> {
  const subject = `test.flush.${randomBytes(4).toString('hex')}`;
  const sub = bus.handle(subject, () => 'ok');
  try {
    expect(await bus.request(subject, null)).toBe('ok');
  } finally {
    await sub.unsubscribe();
  }
}

/** Deterministic bytes, fed in chunks, with their expected size and digest. */
export function blobSource(totalBytes: number, chunkBytes: number) {
  const hash = createHash('sha256');
  let produced = 0;
  let chunksPulled = 0;
  async function* gen(): AsyncGenerator<Uint8Array> {
    let seed = 1;
    while (produced < totalBytes) {
      const n = Math.min(chunkBytes, totalBytes - produced);
      const chunk = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        chunk[i] = seed >> 16;
      }
      hash.update(chunk);
      produced += n;
      chunksPulled++;
      yield chunk;
    }
  }
  return {
    iterable: gen(),
    digest: (() => {
      let d: string | undefined;
      return () => (d ??= natsDigest(hash.digest()));
    })(),
    chunksPulled: () => chunksPulled,
  };
}

function natsDigest(sha: Buffer): string {
  return `SHA-256=${sha.toString('base64').replace(/\+/g, '-').replace(/\//g, '_')}`;
}

export async function readAll(r: Readable): Promise<{ size: number; digest: string; chunks: number }> {
  const hash = createHash('sha256');
  let size = 0;
  let chunks = 0;
  for await (const c of r) {
    const b = c as Buffer;
    hash.update(b);
    size += b.length;
    chunks++;
  }
  return { size, digest: natsDigest(hash.digest()), chunks };
}

// Trace context needs a context manager and a propagator; services get them from the
// OpenTelemetry SDK, tests register these minimal ones (W3C traceparent only).
class AsyncLocalContextManager implements ContextManager {
  private readonly als = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.als.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.als.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = (thisArg: unknown, args: unknown[]) =>
      this.with(ctx, () => (target as (...a: unknown[]) => unknown).apply(thisArg, args));
    return function (this: unknown, ...args: unknown[]) {
      return run(this, args);
    } as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.als.disable();
    return this;
  }
}

const traceparentPropagator: TextMapPropagator = {
  inject(ctx, carrier, setter) {
    const sc = trace.getSpanContext(ctx);
    if (!sc || !isSpanContextValid(sc)) return;
    setter.set(carrier, 'traceparent', `00-${sc.traceId}-${sc.spanId}-0${(sc.traceFlags & 1).toString(16)}`);
  },
  extract(ctx, carrier, getter) {
    const raw = getter.get(carrier, 'traceparent');
    const value = Array.isArray(raw) ? raw[0] : raw;
    const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value ?? '');
    if (!m) return ctx;
    return trace.setSpanContext(ctx, {
      traceId: m[1]!,
      spanId: m[2]!,
      traceFlags: parseInt(m[3]!, 16),
      isRemote: true,
    });
  },
  fields: () => ['traceparent'],
};

let telemetryRegistered = false;
export function registerTestTelemetry(): void {
  if (telemetryRegistered) return;
  telemetryRegistered = true;
  context.setGlobalContextManager(new AsyncLocalContextManager());
  propagation.setGlobalPropagator(traceparentPropagator);
}
