import os from 'node:os';
import { ConfigError, Env, localSignInRule, splitList } from '@chronicler/kit';
import { Type, type Static } from '@sinclair/typebox';

const Duration = (def: string, description: string) =>
  Type.String({ default: def, pattern: '^[0-9]+[smhd]?$', description });

/** The auth service's environment variables (see README: Configuration). */
export const AuthConfigSchema = Type.Object({
  DISCORD_CLIENT_ID: Type.Optional(Type.String()),
  DISCORD_CLIENT_SECRET: Type.Optional(Type.String()),
  /** Our callback as registered at Discord; default: built by the gateway from PUBLIC_URL or the request. */
  DISCORD_REDIRECT_URI: Type.Optional(Env.url()),
  DISCORD_API_BASE: Env.url({ default: 'https://discord.com/api/v10' }),
  DISCORD_OAUTH_AUTHORIZE_URL: Env.url({ default: 'https://discord.com/oauth2/authorize' }),
  GOOGLE_CLIENT_ID: Type.Optional(Type.String()),
  /** Only the redirect flow needs it; the GSI credential flow works with the client id alone. */
  GOOGLE_CLIENT_SECRET: Type.Optional(Type.String()),
  GOOGLE_REDIRECT_URI: Type.Optional(Env.url()),
  GOOGLE_JWKS_URL: Env.url({ default: 'https://www.googleapis.com/oauth2/v3/certs' }),
  GOOGLE_AUTHORIZE_URL: Env.url({ default: 'https://accounts.google.com/o/oauth2/v2/auth' }),
  GOOGLE_TOKEN_URL: Env.url({ default: 'https://oauth2.googleapis.com/token' }),
  GOOGLE_ISSUERS: Type.String({ default: 'accounts.google.com,https://accounts.google.com' }),
  /** HS256 key for our tokens. Required in cluster mode; generated and kept in the database otherwise. */
  AUTH_JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  AUTH_JWT_ISSUER: Type.String({ default: 'chronicler', minLength: 1 }),
  AUTH_JWT_AUDIENCE: Type.String({ default: 'chronicler-web', minLength: 1 }),
  AUTH_TOKEN_TTL: Duration('15m', 'Lifetime of one access token (the refresh credential buys the next)'),
  AUTH_SESSION_TTL: Duration('7d', 'Lifetime of a session, and of its refresh cookie'),
  ADMIN_DISCORD_IDS: Env.list(),
  ADMIN_EMAILS: Env.list(),
  /** Local account names (case-insensitive) that are admins, checked like the two lists above. */
  ADMIN_LOCAL_USERS: Env.list(),
  /** Default: on only in embedded mode with neither Discord nor Google configured. */
  AUTH_LOCAL_ENABLED: Type.Optional(Type.Boolean()),
  OAUTH_HTTP_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100 }),
  /**
   * Failed local sign-ins of one account from one address per AUTH_LOCAL_FAILURE_WINDOW before
   * that account answers 429 to that address (others, its owner's, are not affected).
   */
  AUTH_LOCAL_MAX_FAILURES: Type.Integer({ default: 10, minimum: 1 }),
  /** Failed local sign-ins from one address, whatever the account, before it answers 429. */
  AUTH_LOCAL_MAX_ADDRESS_FAILURES: Type.Integer({ default: 30, minimum: 1 }),
  /**
   * Failed local sign-ins of one account from every address together before the account is
   * locked for everyone (the owner is told through the log); far above the two limits above.
   */
  AUTH_LOCAL_ACCOUNT_LOCK_FAILURES: Type.Integer({ default: 200, minimum: 1 }),
  AUTH_LOCAL_FAILURE_WINDOW: Duration('15m', 'Window of the three failure limits'),
  /** Password checks (scrypt) one auth process runs at once; default the number of cores. */
  AUTH_HASH_CONCURRENCY: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
  /** Password checks that may wait for one of those; more are answered 429 at once. Default twice the above. */
  AUTH_HASH_QUEUE: Type.Optional(Type.Integer({ minimum: 0, maximum: 1024 })),
});
export type AuthConfig = Static<typeof AuthConfigSchema>;

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** "90", "90s", "15m", "1h", "7d" → seconds. */
function parseDuration(value: string): number {
  const m = /^([0-9]+)([smhd]?)$/.exec(value);
  if (!m) throw new Error(`not a duration: ${value}`);
  return Number(m[1]) * UNIT_SECONDS[m[2] || 's']!;
}

/** What the handlers use: the config with its derived values worked out once. */
export interface AuthSettings {
  raw: AuthConfig;
  discord: { clientId: string; clientSecret: string } | null;
  google: { clientId: string; clientSecret: string | null } | null;
  googleIssuers: string[];
  localEnabled: boolean;
  tokenTtlSeconds: number;
  sessionTtlSeconds: number;
  localFailureWindowMs: number;
  hashConcurrency: number;
  hashQueue: number;
  adminDiscordIds: Set<string>;
  adminEmails: Set<string>;
  /** Lowercased, as local names are stored. */
  adminLocalUsers: Set<string>;
}

export function resolveSettings(raw: AuthConfig, mode: 'embedded' | 'cluster'): AuthSettings {
  const problems: ConfigError['problems'] = [];
  // A shared secret is the only way replicas in separate processes agree on tokens.
  if (mode === 'cluster' && !raw.AUTH_JWT_SECRET) {
    problems.push({ variable: 'AUTH_JWT_SECRET', message: 'is required in cluster mode (NATS_URL is set)' });
  }
  const tokenTtlSeconds = parseDuration(raw.AUTH_TOKEN_TTL);
  const sessionTtlSeconds = parseDuration(raw.AUTH_SESSION_TTL);
  if (tokenTtlSeconds < 10)
    problems.push({ variable: 'AUTH_TOKEN_TTL', message: 'must be at least 10 seconds' });
  if (sessionTtlSeconds < tokenTtlSeconds) {
    problems.push({ variable: 'AUTH_SESSION_TTL', message: 'must not be shorter than AUTH_TOKEN_TTL' });
  }
  if (Boolean(raw.DISCORD_CLIENT_ID) !== Boolean(raw.DISCORD_CLIENT_SECRET)) {
    problems.push({
      variable: raw.DISCORD_CLIENT_ID ? 'DISCORD_CLIENT_SECRET' : 'DISCORD_CLIENT_ID',
      message: 'Discord sign-in needs both DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET',
    });
  }
  if (problems.length) throw new ConfigError(problems);

  const discord =
    raw.DISCORD_CLIENT_ID && raw.DISCORD_CLIENT_SECRET
      ? { clientId: raw.DISCORD_CLIENT_ID, clientSecret: raw.DISCORD_CLIENT_SECRET }
      : null;
  const google = raw.GOOGLE_CLIENT_ID
    ? { clientId: raw.GOOGLE_CLIENT_ID, clientSecret: raw.GOOGLE_CLIENT_SECRET ?? null }
    : null;
  // One rule with the embedded runner, which keeps the gateway on loopback while it is on.
  const localEnabled = localSignInRule(raw, mode);
  const hashConcurrency = raw.AUTH_HASH_CONCURRENCY ?? Math.max(1, os.availableParallelism());
  return {
    raw,
    discord,
    google,
    googleIssuers: splitList(raw.GOOGLE_ISSUERS),
    localEnabled,
    tokenTtlSeconds,
    sessionTtlSeconds,
    localFailureWindowMs: Math.max(1, parseDuration(raw.AUTH_LOCAL_FAILURE_WINDOW)) * 1000,
    hashConcurrency,
    hashQueue: raw.AUTH_HASH_QUEUE ?? 2 * hashConcurrency,
    adminDiscordIds: new Set(splitList(raw.ADMIN_DISCORD_IDS)),
    adminEmails: new Set(splitList(raw.ADMIN_EMAILS).map((e) => e.toLowerCase())),
    adminLocalUsers: new Set(splitList(raw.ADMIN_LOCAL_USERS).map((n) => n.trim().toLowerCase())),
  };
}
