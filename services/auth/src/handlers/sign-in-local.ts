import {
  INVALID_CREDENTIALS_MESSAGE,
  LOCAL_PASSWORD_MAX,
  LOCAL_PASSWORD_MIN,
  LOCAL_USERNAME_MAX,
  type LocalSignInRequest,
  type SignIn,
} from '@chronicler/contracts';
import { ServiceError, type Coordination, type Logger } from '@chronicler/kit';
import type { UserRow } from '../db/tables.ts';
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
 * - Failed attempts are counted per account name across replicas (the platform's rate
 *   limiter), on top of the gateway's per-address limit: after AUTH_LOCAL_MAX_FAILURES in
 *   AUTH_LOCAL_FAILURE_WINDOW the name answers 429 with Retry-After, without checking the
 *   password, until the oldest failure leaves the window.
 */
export const signInLocal =
  (deps: AuthDeps, coord: Coordination, logger: Logger) =>
  async (req: LocalSignInRequest): Promise<SignIn> => {
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
    const limit = failureLimit(
      coord,
      name,
      settings.raw.AUTH_LOCAL_MAX_FAILURES,
      settings.localFailureWindowMs,
    );
    const lockedMs = await limit.lockedForMs();
    if (lockedMs > 0) throw tooManyFailures(lockedMs);

    let user = await store.localUser(name);
    if (!user && req.create) {
      const created = await store.createLocalUser(name, username, await hashPassword(password));
      if (created) return signIn(deps, localProfile(name, username));
      // Another request created it in between: from here on it is an existing account.
      user = await store.localUser(name);
    }
    const ok = user
      ? await passwordMatches(deps, user, password, logger)
      : await verifyAgainstNothing(password);
    if (!ok) {
      const refusedMs = await limit.recordFailure();
      if (refusedMs > 0) throw tooManyFailures(refusedMs);
      if (req.create && user) {
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

function tooManyFailures(retryAfterMs: number): ServiceError {
  return new ServiceError(
    'rate_limited',
    'Too many failed sign-ins for this account. Please try again later.',
    { retryAfterMs },
  );
}

/**
 * Failures of one account name in a sliding window. The limiter counts a hit only while
 * under the limit, so the failure that fills it also sets a lock (in the shared cache)
 * that lasts until the oldest failure leaves the window; later attempts see the lock
 * before any password is checked.
 */
function failureLimit(coord: Coordination, name: string, max: number, windowMs: number) {
  const failuresKey = `auth:local-failures:${name}`;
  const lockKey = `auth:local-locked:${name}`;
  return {
    async lockedForMs(): Promise<number> {
      const until = await coord.cache.get<number>(lockKey);
      return typeof until === 'number' ? Math.max(0, until - Date.now()) : 0;
    },
    /** Counts a failure; answers how long the account is refused when this one was over the limit. */
    async recordFailure(): Promise<number> {
      const hit = await coord.rateLimiter.hit(failuresKey, max, windowMs);
      let retryAfterMs = hit.allowed ? 0 : hit.retryAfterMs;
      if (hit.allowed && hit.remaining === 0) {
        // At the limit, a hit is refused without being counted: it only reads the wait.
        retryAfterMs = (await coord.rateLimiter.hit(failuresKey, max, windowMs)).retryAfterMs;
        if (retryAfterMs > 0) await coord.cache.set(lockKey, Date.now() + retryAfterMs, retryAfterMs);
        return 0;
      }
      if (retryAfterMs > 0) await coord.cache.set(lockKey, Date.now() + retryAfterMs, retryAfterMs);
      return retryAfterMs;
    },
  };
}
