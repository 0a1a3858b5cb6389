import { describe, expect, it } from 'vitest';
import { keyedSequence } from './in-order.ts';

describe('keyedSequence', () => {
  it("runs one key's work in the order handed in, other keys beside it, past a failure", async () => {
    const inOrder = keyedSequence();
    const done: string[] = [];
    let releaseA!: () => void;
    const gateA = new Promise<void>((r) => (releaseA = r));
    const a1 = inOrder('a', async () => {
      await gateA;
      done.push('a1');
    });
    const a2 = inOrder('a', async () => {
      done.push('a2');
      throw new Error('a2 failed');
    });
    const a3 = inOrder('a', async () => {
      done.push('a3');
    });
    await inOrder('b', async () => {
      done.push('b1');
    });
    // b ran while a's first piece still waited.
    expect(done).toEqual(['b1']);
    releaseA();
    await a1;
    await expect(a2).rejects.toThrow('a2 failed');
    await a3;
    expect(done).toEqual(['b1', 'a1', 'a2', 'a3']);
  });
});
