import {
  INVALID_CREDENTIALS_MESSAGE,
  LOCAL_PASSWORD_MAX,
  LOCAL_PASSWORD_MIN,
  LOCAL_USERNAME_MAX,
  type LocalSignInCall,
  type SignIn,
} from '@chronicler/contracts';
import { ServiceError, type Coordination, type Logger } from '@chronicler/kit';
import type { AuthSettings } from '../config.ts';
import type { UserRow } from '../db/tables.ts';
import type { HashGate } from '../hash-gate.ts';
import { hashPassword, verifyAgainstNothing, verifyPassword } from '../passwords.ts';
import { signIn, type AuthDeps } from '../sessions.ts';

/**
 * svc.auth.sign-in-local: an account named by the user and protected by a password, for a
 * server without Discord or Google. Names match case-insensitively, so "Alice" and "alice"
 * are one account.
 *
 * - `create: true` opens the account; when it exists already, the right password signs in
 *   (a retried create is harmless) and a wrong one answers 409.
 * - Otherwise an unknown name and a wrong password both answer 401 with one message, after
 *   the same amount of hashing, so neither the answer nor its time tells which was wrong.
 * - Claim on first use: a local account made before passwords existed has none, and the
 *   first password given for it (by sign-in or create) becomes its password. Until then
 *   anyone who knows the name can claim it, which is why the login form asks owners to do
 *   so; there was nothing protecting such an account before either.
 * - Failures slow the attacker, not the owner (OWASP Authentication Cheat Sheet): they are
 *   counted across replicas (the platform's rate limiter) per (account, address) and per
 *   address, each with its own limit in AUTH_LOCAL_FAILURE_WINDOW; past one, that pair or
 *   that address answers 429 with Retry-After without a password check, while the owner's
 *   right password from an address that has not been failing still signs in. Only far more
 *   failures of one account from everywhere (AUTH_LOCAL_ACCOUNT_LOCK_FAILURES) lock it for
 *   everyone, and that is logged as a warning for the operator to tell the owner.
 * - Every password check goes through the process's HashGate: a burst beyond what the
 *   cores can hash in time is answered 429 at once instead of 504 later. An unknown name
 *   costs one check like a known one, in the same gate.
 */
export const signInLocal =
  (deps: AuthDeps, coord: Coordination, gate: HashGate, logger: Logger) =>
  async (req: LocalSignInCall): Promise<SignIn> => {
    const { settings, store } = deps;
    if (!settings.localEnabled) throw new ServiceError('forbidden', 'Local sign-in is not enabled');
    const username = req.username.trim().replace(/\s+/g, ' ');
    if (!username) throw new ServiceError('bad_request', 'Username cannot be empty.');
    if (username.length > LOCAL_USERNAME_MAX) {
      throw new ServiceError('bad_request', `Username cannot exceed ${LOCAL_USERNAME_MAX} characters.`);
    }
    if (/[\p{Cc}\p{Cf}]/u.test(username))
      throw new ServiceError('bad_request', 'Username contains invalid characters.');
    const password = req.password;
    if (password.length < LOCAL_PASSWORD_MIN) {
      throw new ServiceError('bad_request', `Password must be at least ${LOCAL_PASSWORD_MIN} characters.`);
    }
    if (password.length > LOCAL_PASSWORD_MAX) {
      throw new ServiceError('bad_request', `Password cannot exceed ${LOCAL_PASSWORD_MAX} characters.`);
    }

    const name = username.toLowerCase();
    const limits = failureLimits(coord, settings, name, req.client_address);
    await limits.refuseWhenLocked();

    const outcome = await gate.run(async () => {
      let user = await store.localUser(name);
      if (!user && req.create) {
        const created = await store.createLocalUser(name, username, await hashPassword(password));
        if (created) return { ok: true as const, user: created };
        // Another request created it in between: from here on it is an existing account.
        user = await store.localUser(name);
      }
      const ok = user
        ? await passwordMatches(deps, user, password, logger)
        : await verifyAgainstNothing(password);
      return { ok, user };
    });
    if (!outcome.ok) {
      await limits.recordFailure(logger);
      if (req.create && outcome.user) {
        throw new ServiceError(
          'conflict',
          'That username is taken. Sign in with its password, or choose another name.',
        );
      }
      throw new ServiceError('unauthorized', INVALID_CREDENTIALS_MESSAGE);
    }
    return signIn(deps, localProfile(name, username));
  };

const localProfile = (name: string, username: string) => ({
  provider: 'local' as const,
  subject: name,
  username,
  avatar: null,
  email: null,
});

async function passwordMatches(
  { store }: AuthDeps,
  user: UserRow,
  password: string,
  logger: Logger,
): Promise<boolean> {
  let stored = user.password_hash;
  if (stored === null) {
    if (await store.claimPassword(user.id, await hashPassword(password))) {
      logger.info({ user_id: user.id }, 'local account without a password took its first one');
      return true;
    }
    // A racing request claimed it first: its password is the one to match now.
    stored = (await store.userById(user.id))?.password_hash ?? null;
    if (stored === null) return false;
  }
  const { ok, needsRehash } = await verifyPassword(password, stored);
  if (ok && needsRehash) await store.replacePasswordHash(user.id, stored, await hashPassword(password));
  return ok;
}

const TOO_MANY = {
  pair: 'Too many failed sign-ins for this account. Please try again later.',
  address: 'Too many failed sign-ins from your address. Please try again later.',
  account: 'This account is locked after too many failed sign-ins. Please try again later.',
} as const;

function tooManyFailures(scope: keyof typeof TOO_MANY, retryAfterMs: number): ServiceError {
  return new ServiceError('rate_limited', TOO_MANY[scope], { retryAfterMs });
}

/**
 * Failures in a sliding window, in three scopes: the account from this address, this
 * address for any account, and the account from everywhere. The limiter counts a hit only
 * while under the limit, so the failure that fills a scope also sets a lock (in the shared
 * cache) that lasts until its oldest failure leaves the window; later attempts in that
 * scope see the lock before any password is checked.
 */
function failureLimits(coord: Coordination, settings: AuthSettings, name: string, address: string) {
  const windowMs = settings.localFailureWindowMs;
  const scopes = [
    { scope: 'pair', id: `${name}|${address}`, max: settings.raw.AUTH_LOCAL_MAX_FAILURES },
    { scope: 'address', id: address, max: settings.raw.AUTH_LOCAL_MAX_ADDRESS_FAILURES },
    { scope: 'account', id: name, max: settings.raw.AUTH_LOCAL_ACCOUNT_LOCK_FAILURES },
  ] as const;
  const keys = (s: (typeof scopes)[number]) => ({
    failures: `auth:local-failures:${s.scope}:${s.id}`,
    lock: `auth:local-locked:${s.scope}:${s.id}`,
  });
  return {
    async refuseWhenLocked(): Promise<void> {
      const now = Date.now();
      const locks = await Promise.all(scopes.map((s) => coord.cache.get<number>(keys(s).lock)));
      let longest: { scope: (typeof scopes)[number]['scope']; wait: number } | null = null;
      for (const [i, until] of locks.entries()) {
        const wait = typeof until === 'number' ? until - now : 0;
        if (wait > 0 && wait > (longest?.wait ?? 0)) longest = { scope: scopes[i]!.scope, wait };
      }
      if (longest) throw tooManyFailures(longest.scope, longest.wait);
    },
    /** Counts a failure in every scope, locking each scope it fills. */
    async recordFailure(logger: Logger): Promise<void> {
      for (const s of scopes) {
        const { failures, lock } = keys(s);
        const hit = await coord.rateLimiter.hit(failures, s.max, windowMs);
        if (hit.allowed && hit.remaining > 0) continue;
        // At the limit a hit is refused without being counted: it only reads the wait.
        const retryAfterMs = hit.allowed
          ? (await coord.rateLimiter.hit(failures, s.max, windowMs)).retryAfterMs
          : hit.retryAfterMs;
        if (retryAfterMs <= 0) continue;
        const until = Date.now() + retryAfterMs;
        const already = await coord.cache.get<number>(lock);
        if (typeof already === 'number' && already >= until) continue;
        await coord.cache.set(lock, until, retryAfterMs);
        if (s.scope === 'account') {
          // No mail channel to reach the owner: the operator's log says it, once per lock.
          logger.warn(
            { account: name, failures: s.max, locked_until: new Date(until).toISOString() },
            'local account locked for everyone after too many failed sign-ins from all addresses; tell its owner',
          );
        }
      }
    },
  };
}
