import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { INVALID_CREDENTIALS_MESSAGE, type VerifySessionResult } from '@chronicler/contracts';
import { createLogger, loadConfig, MemoryCoordination, ServiceError, type Bus } from '@chronicler/kit';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthConfigSchema, resolveSettings } from '../config.ts';
import { AuthStore } from '../db/store.ts';
import { HashGate } from '../hash-gate.ts';
import type { AuthDeps } from '../sessions.ts';
import { TokenService } from '../tokens.ts';
import { refreshSession } from './refresh-session.ts';
import { signInLocal } from './sign-in-local.ts';
import { verifySession } from './verify-session.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
const MAX_FAILURES = 2;

let bed: ServiceTestbed;
let deps: AuthDeps;
let coord: MemoryCoordination;
const logger = createLogger('auth-test', { level: 'silent' });

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'auth', migrationsDir });
  const settings = resolveSettings(
    loadConfig(AuthConfigSchema, { AUTH_LOCAL_MAX_FAILURES: String(MAX_FAILURES), AUTH_TOKEN_TTL: '1h' }),
    'embedded',
  );
  const store = new AuthStore(bed.db, bed.schema);
  deps = { settings, store, tokens: await TokenService.create(settings, store) };
  coord = new MemoryCoordination();
});
afterAll(async () => {
  await coord?.close();
  await bed?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  const { code, message } = err as ServiceError;
  return { code, message };
}

/** The accepted answer of verify-session; fails the test on a refusal. */
function accepted(result: VerifySessionResult): Extract<VerifySessionResult, { valid: true }> {
  if (!result.valid) throw new Error('the token was refused');
  return result;
}

const gate = new HashGate({ concurrency: 2, maxQueued: 4, maxWaitMs: 60_000, retryAfterMs: 1000 });
const signIn = (username: string, password: string, create = false, client_address = '192.0.2.1') =>
  signInLocal(deps, coord, gate, logger)({ username, password, create, client_address });

describe('svc.auth.sign-in-local', () => {
  it('creates an account, then signs in to it by any casing of its name', async () => {
    const created = await signIn('  Alice  Liddell ', 'correct horse battery', true);
    expect(created.user.username).toBe('Alice Liddell');
    expect(created.token).toEqual(expect.any(String));
    const again = await signIn('alice liddell', 'correct horse battery');
    expect(again.user.id).toBe(created.user.id);
    expect(again.session_id).not.toBe(created.session_id);
  });

  it('answers 401 with one message for a wrong password and for an unknown name', async () => {
    await signIn('bob', 'bobs password 1', true);
    const expected = { code: 'unauthorized', message: INVALID_CREDENTIALS_MESSAGE };
    expect(await refusal(signIn('bob', 'not bobs password'))).toEqual(expected);
    expect(await refusal(signIn('nobody-here', 'whatever password'))).toEqual(expected);
  });

  it('refuses to create a taken name with another password (409)', async () => {
    await signIn('carol', 'carols password', true);
    expect((await refusal(signIn('Carol', 'a different one', true))).code).toBe('conflict');
    // The right password makes a retried create harmless.
    expect((await signIn('carol', 'carols password', true)).user.username).toBe('carol');
  });

  it('refuses an account to the failing address after its limit, even with the right password; its owner elsewhere and other accounts are unaffected', async () => {
    await signIn('dave', 'daves password', true);
    await signIn('erin', 'erins password', true);
    const attacker = '198.51.100.7';
    for (let i = 0; i < MAX_FAILURES; i++) {
      expect((await refusal(signIn('dave', `wrong ${i} password`, false, attacker))).code).toBe(
        'unauthorized',
      );
    }
    expect(await refusal(signIn('dave', 'daves password', false, attacker))).toEqual({
      code: 'rate_limited',
      message: 'Too many failed sign-ins for this account. Please try again later.',
    });
    expect((await signIn('dave', 'daves password', false, '203.0.113.9')).user.username).toBe('dave');
    expect((await signIn('erin', 'erins password', false, attacker)).user.username).toBe('erin');
  });

  it('refuses blank names and short passwords before looking anything up', async () => {
    expect(await refusal(signIn('   ', 'long enough password', true))).toEqual({
      code: 'bad_request',
      message: 'Username cannot be empty.',
    });
    expect((await refusal(signIn('frank', 'short', true))).message).toMatch(/^Password must be at least/);
    expect((await refusal(signIn('fr\u200bank', 'long enough password', true))).message).toBe(
      'Username contains invalid characters.',
    );
  });
});

describe('svc.auth.verify-session', () => {
  it('accepts a fresh token and reports its user and session', async () => {
    const session = await signIn('grace', 'graces password', true);
    const result = accepted(await verifySession(deps)({ token: session.token }));
    expect(result).toMatchObject({
      valid: true,
      session_id: session.session_id,
      user: { id: session.user.id },
    });
  });

  it('refuses an expired token while its session lives', async () => {
    const session = await signIn('heidi', 'heidis password', true);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 2 * 3600_000);
    expect(await verifySession(deps)({ token: session.token })).toEqual({ valid: false });
    expect(await deps.store.liveSession(session.session_id)).toBeDefined();
  });

  it('refuses a token that is not ours', async () => {
    const session = await signIn('ivan', 'ivans password', true);
    const [header, payload] = session.token.split('.');
    expect(await verifySession(deps)({ token: `${header}.${payload}.forgedsignature` })).toEqual({
      valid: false,
    });
    expect(await verifySession(deps)({ token: 'not a jwt' })).toEqual({ valid: false });
  });
});

describe('svc.auth.refresh-session', () => {
  const bus = { publish: vi.fn(async () => undefined) } as unknown as Bus;
  const refresh = (refresh_token: string) => refreshSession(deps, bus, logger)({ refresh_token });

  it('trades a refresh credential for a new token and a new credential, once', async () => {
    const session = await signIn('judy', 'judys password', true);
    expect(session.refresh_token).not.toBe(session.token);
    const next = await refresh(session.refresh_token);
    expect(next.session_id).toBe(session.session_id);
    expect(next.refresh_token).not.toBe(session.refresh_token);
    accepted(await verifySession(deps)({ token: next.token }));
    // The next one works in turn.
    expect((await refresh(next.refresh_token)).session_id).toBe(session.session_id);
  });

  it('revokes the session when a used credential comes back, and tells the gateways', async () => {
    const session = await signIn('mallory', 'mallorys password', true);
    const next = await refresh(session.refresh_token);
    expect((await refusal(refresh(session.refresh_token))).code).toBe('unauthorized');
    expect(await deps.store.liveSession(session.session_id)).toBeUndefined();
    expect(bus.publish).toHaveBeenCalledWith(expect.any(String), {
      session_id: session.session_id,
      user_id: session.user.id,
    });
    // The newest credential dies with its session, and so does the access token.
    expect((await refusal(refresh(next.refresh_token))).code).toBe('unauthorized');
    expect(await verifySession(deps)({ token: next.token })).toEqual({ valid: false });
  });

  it('refuses an unknown credential', async () => {
    expect((await refusal(refresh('not-a-credential'))).code).toBe('unauthorized');
  });
});
