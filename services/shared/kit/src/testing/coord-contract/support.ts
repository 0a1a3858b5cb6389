import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/** A prefix no other test (or concurrent run against the same Redis) uses. */
export const uniquePrefix = (): string => `chronicler-test-${randomBytes(6).toString('hex')}`;

/** Polls `probe` until it returns true; fails the test when `timeoutMs` passes first. */
export async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 3_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await probe())) {
    if (performance.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}
