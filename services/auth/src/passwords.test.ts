import { describe, expect, it } from 'vitest';
import { CURRENT_PARAMS, hashPassword, verifyAgainstNothing, verifyPassword } from './passwords.ts';

describe('local account passwords (scrypt)', () => {
  it('stores parameters and a fresh salt with each hash, and never the password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^\$scrypt\$ln=15,r=8,p=3\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct');
  });

  it('accepts the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', stored)).toEqual({ ok: true, needsRehash: false });
    expect((await verifyPassword('correct horse batterY', stored)).ok).toBe(false);
    expect((await verifyPassword('', stored)).ok).toBe(false);
  });

  it('checks a hash made with other parameters by its own, and asks for a rehash', async () => {
    // A hash of "hunter2hunter2" at ln=10, as an older release with a lower cost would have stored it.
    const { scryptSync } = await import('node:crypto');
    const salt = Buffer.from('0123456789abcdef');
    const key = scryptSync('hunter2hunter2', salt, 32, { N: 2 ** 10, r: 8, p: 1 });
    const old = `$scrypt$ln=10,r=8,p=1$${salt.toString('base64').replace(/=+$/, '')}$${key.toString('base64').replace(/=+$/, '')}`;
    expect(CURRENT_PARAMS.ln).not.toBe(10);
    expect(await verifyPassword('hunter2hunter2', old)).toEqual({ ok: true, needsRehash: true });
    expect((await verifyPassword('hunter2hunter3', old)).ok).toBe(false);
  });

  it('keeps verifying the hashes of the previous cost (ln=15, r=8, p=1) and asks to rehash them', async () => {
    const { scryptSync } = await import('node:crypto');
    const salt = Buffer.from('fedcba9876543210');
    const key = scryptSync('open sesame please', salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 << 20 });
    const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
    const previous = `$scrypt$ln=15,r=8,p=1$${b64(salt)}$${b64(key)}`;
    expect(await verifyPassword('open sesame please', previous)).toEqual({ ok: true, needsRehash: true });
  });

  it('hashes on the thread pool: the event loop turns while a hash is being made', async () => {
    const order: string[] = [];
    const hashed = hashPassword('correct horse battery').then(() => order.push('hashed'));
    // Scheduled after the hash started: a hash made on the event loop would finish first.
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        order.push('event loop turned');
        resolve();
      }),
    );
    await hashed;
    expect(order).toEqual(['event loop turned', 'hashed']);
  });

  it('never matches a malformed or absurd stored value', async () => {
    for (const stored of [
      '',
      'plain',
      '$scrypt$ln=99,r=8,p=1$AAAA$AAAA',
      '$scrypt$ln=15,r=8,p=1$AAAA$AAAA',
    ]) {
      expect((await verifyPassword('anything-at-all', stored)).ok).toBe(false);
    }
    expect(await verifyAgainstNothing('anything-at-all')).toBe(false);
  });
});
