import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localPassword, setCookie } from '../support/auth.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

// The test is the proxy the gateway trusts: X-Forwarded-For names each request's address.
const ENV = {
  AUTH_LOCAL_ENABLED: 'true',
  TRUST_PROXY: '127.0.0.1',
  RATE_LIMIT_SIGN_IN_MAX: '1000',
  AUTH_LOCAL_MAX_FAILURES: '10',
  AUTH_LOCAL_MAX_ADDRESS_FAILURES: '12',
  AUTH_LOCAL_ACCOUNT_LOCK_FAILURES: '20',
};

// Each test makes tens of password checks in a row, each about 0.4 s of a core at OWASP's
// scrypt cost (services/auth/src/passwords.ts) and several times that on a busy machine: the
// limits below leave room for that, the assertions are on answers only.
describe(`sign-in throttles attackers, not owners, and holds under a burst (${testMode} mode)`, () => {
  let system: TestSystem;
  const logLines: string[] = [];

  beforeAll(async () => {
    system = await startSystem({
      env: ENV,
      logDestination: { write: (line: string) => void logLines.push(line) },
    });
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  const signIn = (address: string, username: string, password: string, create = false) =>
    fetch(`${system.url}/api/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ username, password, create }),
    });
  const create = async (address: string, username: string) =>
    expect((await signIn(address, username, localPassword(username), true)).status).toBe(200);

  it("the owner's right password from their own address succeeds after a stranger's 11 wrong ones", async () => {
    await create('203.0.113.10', 'keyleth');
    for (let i = 1; i <= 10; i++) {
      expect((await signIn('198.51.100.66', 'keyleth', `stranger guess ${i}`)).status).toBe(401);
    }
    const eleventh = await signIn('198.51.100.66', 'keyleth', 'stranger guess 11');
    expect(eleventh.status).toBe(429);
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await eleventh.json()).toEqual({
      detail: 'Too many failed sign-ins for this account. Please try again later.',
    });

    const owner = await signIn('203.0.113.10', 'Keyleth', localPassword('keyleth'));
    expect(owner.status).toBe(200);
    expect(setCookie(owner, 'access_token')).toBeDefined();
    // From another address that has not been failing too (a phone on another network).
    expect((await signIn('203.0.113.11', 'keyleth', localPassword('keyleth'))).status).toBe(200);
    // The stranger's address stays refused for this account, even with the right password.
    expect((await signIn('198.51.100.66', 'keyleth', localPassword('keyleth'))).status).toBe(429);
  }, 180_000);

  it('an address that fails across many accounts is refused for all of them; other addresses are not', async () => {
    await create('203.0.113.20', 'scanlan');
    for (let i = 1; i <= 12; i++) {
      expect((await signIn('198.51.100.77', `nobody-${i}`, 'spraying one password')).status).toBe(401);
    }
    const refused = await signIn('198.51.100.77', 'scanlan', localPassword('scanlan'));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      detail: 'Too many failed sign-ins from your address. Please try again later.',
    });
    expect((await signIn('203.0.113.20', 'scanlan', localPassword('scanlan'))).status).toBe(200);
  }, 180_000);

  it('locks an account for everyone only after far more failures from many addresses, and says so in the log', async () => {
    await create('203.0.113.30', 'vex');
    // Ten from each of two addresses: each pair is refused at its limit, and the account's
    // twentieth failure locks it.
    for (const address of ['198.51.100.1', '198.51.100.2']) {
      for (let i = 1; i <= 10; i++)
        expect((await signIn(address, 'vex', `wrong guess ${i}`)).status).toBe(401);
    }
    const owner = await signIn('203.0.113.30', 'vex', localPassword('vex'));
    expect(owner.status).toBe(429);
    expect(await owner.json()).toEqual({
      detail: 'This account is locked after too many failed sign-ins. Please try again later.',
    });
    const notice = logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.account === 'vex');
    expect(notice).toMatchObject({
      level: 'warn',
      msg: expect.stringMatching(/locked for everyone.*tell its owner/),
    });
  }, 180_000);

  it('30 sign-ins at once all answer 200 or 429 (Retry-After), never 5xx', async () => {
    await create('203.0.113.40', 'percy');
    const answers = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const res = await signIn(`192.0.2.${i + 1}`, 'percy', localPassword('percy'));
        return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
      }),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(statuses).toContain(200);
    // More than the cores can hash in time: the excess is told to come back, not kept waiting.
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(r.body)).toEqual({
        detail: 'Too many sign-ins at once. Please try again in a moment.',
      });
    }
  }, 180_000);
});
