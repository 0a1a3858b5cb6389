import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt cost of new hashes, per OWASP's Password Storage Cheat Sheet (2023 on): N = 2^17,
 * r = 8, p = 1, or an equal cost with less memory; here N = 2^15, r = 8, p = 3, its listed
 * equivalent, which needs 32 MiB per check instead of 128 MiB (an auth pod runs one check
 * per core at once, AUTH_HASH_CONCURRENCY). One check takes about 0.4 s of one thread-pool
 * thread on an idle core of the build machines (measured with scryptSync), more on a busy
 * one: the gateway waits SIGN_IN_LOCAL_TIMEOUT_MS (30 s) for a local sign-in, not the default 5 s.
 * The parameters are stored with every hash, so raising them here rehashes each account at
 * its next successful sign-in and never breaks an existing one (ln=15,r=8,p=1 before).
 */
export const CURRENT_PARAMS = { ln: 15, r: 8, p: 3 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

interface Params {
  ln: number;
  r: number;
  p: number;
}

const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function derive(password: string, salt: Buffer, params: Params, length: number): Promise<Buffer> {
  const opts: ScryptOptions = {
    N: 2 ** params.ln,
    r: params.r,
    p: params.p,
    // scrypt needs 128 * N * r bytes; node refuses above maxmem (32 MiB by default).
    maxmem: 128 * 2 ** params.ln * params.r * 2,
  };
  // The async form runs on libuv's thread pool, so hashing never blocks the event loop.
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const b64 = (buf: Buffer): string => buf.toString('base64').replace(/=+$/, '');

/** A new hash of `password` with a fresh salt and the current parameters. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, CURRENT_PARAMS, KEY_BYTES);
  const { ln, r, p } = CURRENT_PARAMS;
  return `$scrypt$ln=${ln},r=${r},p=${p}$${b64(salt)}$${b64(key)}`;
}

/**
 * Whether `password` matches `stored` (compared in constant time), and whether the hash
 * was made with other parameters than today's and should be replaced. A malformed
 * stored value never matches.
 */
export async function verifyPassword(
  password: string,
  stored: string,
): Promise<{ ok: boolean; needsRehash: boolean }> {
  const m = FORMAT.exec(stored);
  if (!m) return { ok: false, needsRehash: false };
  const params = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  if (params.ln < 1 || params.ln > 24 || params.r < 1 || params.p < 1)
    return { ok: false, needsRehash: false };
  const salt = Buffer.from(m[4]!, 'base64');
  const expected = Buffer.from(m[5]!, 'base64');
  if (expected.length < 16) return { ok: false, needsRehash: false };
  const actual = await derive(password, salt, params, expected.length);
  const ok = timingSafeEqual(actual, expected);
  const needsRehash =
    params.ln !== CURRENT_PARAMS.ln || params.r !== CURRENT_PARAMS.r || params.p !== CURRENT_PARAMS.p;
  return { ok, needsRehash };
}

// Hashed once, lazily: checking a password against it costs what checking a real account
// does, so the time of an answer does not tell whether the name exists.
let dummy: Promise<string> | undefined;

/** Spends the time of one password check and answers false. */
export async function verifyAgainstNothing(password: string): Promise<false> {
  dummy ??= hashPassword('no account has this password');
  await verifyPassword(password, await dummy);
  return false;
}
