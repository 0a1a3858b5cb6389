import { describe, expect, it } from 'vitest';
import { Outbox } from './nats-outbox.ts';

describe('Outbox', () => {
  it('holds what is sent in one turn and sends it together, in order, in the check phase', async () => {
    const outbox = new Outbox();
    const sent: string[] = [];
    outbox.send(() => sent.push('a'));
    outbox.send(() => sent.push('b'));
    await Promise.resolve(); // microtasks (nats.js's own flush) run before it
    expect(sent).toEqual([]);
    expect(outbox.size).toBe(2);
    outbox.send(() => sent.push('c'));
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual(['a', 'b', 'c']);
    expect(outbox.size).toBe(0);
  });

  it('flush sends at once, and a later turn starts a new batch', async () => {
    const outbox = new Outbox();
    const sent: number[] = [];
    outbox.send(() => sent.push(1));
    outbox.flush();
    expect(sent).toEqual([1]);
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([1]);
    outbox.send(() => sent.push(2));
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([1, 2]);
  });
});
