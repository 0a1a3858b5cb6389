import { DAVESession } from '@discordjs/voice';
import { describe, expect, it } from 'vitest';

// patches/@discordjs__voice@0.19.2.patch: a DAVE message the MLS group cannot take is answered
// as Discord expects of an invalid commit or welcome (op 31 for the transition, then a fresh key
// package, op 26) instead of throwing out of the voice WebSocket's message handler.
describe('the patched @discordjs/voice DAVE session', () => {
  const session = (): { s: DAVESession; invalidated: number[]; keyPackages: number } => {
    const s = new DAVESession(1, '1001', '7002', {});
    const out = { s, invalidated: [] as number[], keyPackages: 0 };
    s.on('invalidateTransition', (id: number) => out.invalidated.push(id));
    s.on('keyPackage', () => out.keyPackages++);
    s.reinit();
    return out;
  };

  it('answers proposals it cannot process with op 31 and a fresh key package, without throwing', () => {
    const o = session();
    expect(o.keyPackages).toBe(1);
    // Proposals (append, varint length, body) that are no MLS message of this group.
    const payload = Buffer.concat([Buffer.from([0, 8]), Buffer.alloc(8, 0x42)]);
    expect(() => o.s.processProposals(payload, new Set(['1001', '2001']))).not.toThrow();
    expect(o.s.processProposals(payload, new Set(['1001']))).toBeUndefined();
    expect(o.invalidated).toEqual([0]);
    expect(o.keyPackages).toBe(2);
    expect(o.s.reinitializing).toBe(true);
  });

  it('answers an invalid commit for a transition with op 31 for that transition', () => {
    const o = session();
    const commit = Buffer.concat([Buffer.from([0, 5]), Buffer.alloc(12, 0x17)]);
    expect(o.s.processCommit(commit)).toEqual({ transitionId: 5, success: false });
    expect(o.invalidated).toEqual([5]);
    expect(o.keyPackages).toBe(2);
  });
});
