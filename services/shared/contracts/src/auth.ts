import { Type, type Static } from '@sinclair/typebox';
import { busEvent } from './events.ts';
import { rpc } from './rpc.ts';

// ---------------------------------------------------------------------------------------
// REST payloads (gateway /api/auth/*, /api/config)
// ---------------------------------------------------------------------------------------

/** The signed-in user as the web client sees it. */
export const AuthUserSchema = Type.Object({
  id: Type.String(),
  username: Type.String(),
  /** A full image URL (Google), a Discord avatar hash (combined with discord_id), or null. */
  avatar: Type.Union([Type.String(), Type.Null()]),
  discord_id: Type.Union([Type.String(), Type.Null()]),
  is_admin: Type.Boolean(),
});
export type AuthUser = Static<typeof AuthUserSchema>;

/** GET /api/auth/user, POST /api/auth/google/credential, POST /api/auth/local. */
export const AuthCheckResponseSchema = Type.Object({
  authenticated: Type.Boolean(),
  user: Type.Optional(AuthUserSchema),
  token: Type.Optional(Type.String()),
});
export type AuthCheckResponse = Static<typeof AuthCheckResponseSchema>;

/** GET /api/auth/discord/login, GET /api/auth/google/login. */
export const LoginUrlResponseSchema = Type.Object({ login_url: Type.String() });
export type LoginUrlResponse = Static<typeof LoginUrlResponseSchema>;

/** POST /api/auth/google/credential: the ID token from Google Identity Services. */
export const GoogleCredentialRequestSchema = Type.Object(
  { credential: Type.String({ minLength: 1, maxLength: 8192 }) },
  { additionalProperties: false },
);
export type GoogleCredentialRequest = Static<typeof GoogleCredentialRequestSchema>;

/** Longest local account name, after trimming. */
export const LOCAL_USERNAME_MAX = 32;

/** Shortest and longest password of a local account (characters). */
export const LOCAL_PASSWORD_MIN = 8;
export const LOCAL_PASSWORD_MAX = 256;

/** The one answer to a wrong name or a wrong password, so it never tells which was wrong. */
export const INVALID_CREDENTIALS_MESSAGE = 'Invalid username or password.';

/**
 * POST /api/auth/local (no provider configured). `create: true` opens a new account with
 * this password; an existing account of that name is signed in when the password is its
 * own (so a retried create is harmless) and refused with 409 otherwise. Without `create`
 * only an existing account signs in. A local account made before passwords existed takes
 * the first password given to it (claim on first use).
 */
export const LocalSignInRequestSchema = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 200 }),
    // The minimum is checked by the auth service, which can say it in words.
    password: Type.String({ maxLength: LOCAL_PASSWORD_MAX }),
    create: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type LocalSignInRequest = Static<typeof LocalSignInRequestSchema>;

/** GET /api/auth/debug-cookies. */
export const DebugCookiesResponseSchema = Type.Object({ access_token_present: Type.Boolean() });
export type DebugCookiesResponse = Static<typeof DebugCookiesResponseSchema>;

/** GET /api/auth/logout. */
export const LogoutResponseSchema = Type.Object({ message: Type.String() });
export type LogoutResponse = Static<typeof LogoutResponseSchema>;

/** GET /api/auth/providers: which sign-in methods the login page offers. */
export const AuthProvidersSchema = Type.Object({
  discord: Type.Boolean(),
  google: Type.Boolean(),
  google_client_id: Type.Union([Type.String(), Type.Null()]),
  local: Type.Boolean(),
  /** Local accounts are on and none exists yet (a fresh instance): the login page opens on "Create account". */
  first_account: Type.Boolean(),
});
export type AuthProviders = Static<typeof AuthProvidersSchema>;

/** GET /api/config. */
export const AppConfigSchema = Type.Object({
  bot_invite_url: Type.Union([Type.String(), Type.Null()]),
  community_url: Type.Union([Type.String(), Type.Null()]),
  /** The speech-to-text provider that transcribes uploads, or null: audio upload is not available. */
  speech_provider: Type.Union([Type.String(), Type.Null()]),
});
export type AppConfig = Static<typeof AppConfigSchema>;

/** Name of the cookie that carries the access token. */
export const ACCESS_TOKEN_COOKIE = 'access_token';
/** The httpOnly cookie of the refresh credential, sent only to REFRESH_COOKIE_PATH. */
export const REFRESH_TOKEN_COOKIE = 'refresh_token';
/** POST here (the cookie's Path) trades the refresh credential for a new access token and a new credential. */
export const REFRESH_COOKIE_PATH = '/api/auth/refresh';

/** POST /api/auth/socket-ticket: a one-time code that opens one WebSocket (`?token=` or `?ticket=`) within a minute. */
export const SocketTicketResponseSchema = Type.Object({
  ticket: Type.String(),
  expires_in: Type.Integer({ description: 'seconds' }),
});
export type SocketTicketResponse = Static<typeof SocketTicketResponseSchema>;

/**
 * Short codes the server's OAuth callbacks put in `/login?error=<code>`:
 * `access_denied` the user refused consent; `invalid_state` unknown, expired or reused
 * state; `invalid_grant` the provider refused the code (replayed, expired);
 * `provider_error` the provider answered 4xx/5xx or garbage; `provider_unavailable`
 * network failure or timeout; `not_configured` the provider is not set up;
 * `server_error` anything else.
 */
export const OAuthErrorCodeSchema = Type.Union([
  Type.Literal('access_denied'),
  Type.Literal('invalid_state'),
  Type.Literal('invalid_grant'),
  Type.Literal('provider_error'),
  Type.Literal('provider_unavailable'),
  Type.Literal('not_configured'),
  Type.Literal('server_error'),
]);
export type OAuthErrorCode = Static<typeof OAuthErrorCodeSchema>;

// ---------------------------------------------------------------------------------------
// Bus: svc.auth.*
// ---------------------------------------------------------------------------------------

/** A new session: the token to hand out (cookie and body) and the user it belongs to. */
export const SignInSchema = Type.Object({
  /** The access token: short-lived (AUTH_TOKEN_TTL), refused by every check once expired. */
  token: Type.String(),
  /** ISO time when the access token (and so its cookie) expires. */
  token_expires_at: Type.String(),
  /**
   * The refresh credential, distinct from the access token: single use (each use answers a
   * new one), only ever in the httpOnly cookie the gateway scopes to REFRESH_COOKIE_PATH.
   */
  refresh_token: Type.String(),
  user: AuthUserSchema,
  session_id: Type.String(),
  /** ISO time when the session (and so the refresh cookie) ends. */
  session_expires_at: Type.String(),
});
export type SignIn = Static<typeof SignInSchema>;

export const OAuthSignInResultSchema = Type.Union([
  Type.Object({ ok: Type.Literal(true), signIn: SignInSchema }),
  Type.Object({ ok: Type.Literal(false), error: OAuthErrorCodeSchema }),
]);
export type OAuthSignInResult = Static<typeof OAuthSignInResultSchema>;

/** What an OAuth provider sent to our callback, passed on untouched by the gateway. */
export const OAuthCallbackRequestSchema = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 2048 })),
  state: Type.Optional(Type.String({ maxLength: 512 })),
  error: Type.Optional(Type.String({ maxLength: 256 })),
});
export type OAuthCallbackRequest = Static<typeof OAuthCallbackRequestSchema>;

export const LoginUrlRequestSchema = Type.Object({
  /** Our callback URL as the gateway sees it; used when the service has none configured. */
  redirect_uri: Type.String({ minLength: 1, maxLength: 2048 }),
});

export const getProvidersRpc = rpc('auth', 'get-providers', Type.Object({}), AuthProvidersSchema);

/** Starts Discord's authorization-code flow: stores state + PKCE verifier, answers the URL. */
export const discordLoginUrlRpc = rpc(
  'auth',
  'discord-login-url',
  LoginUrlRequestSchema,
  LoginUrlResponseSchema,
);

/** Finishes Discord's flow: checks state, exchanges the code, reads and upserts the user. */
export const signInDiscordRpc = rpc(
  'auth',
  'sign-in-discord',
  OAuthCallbackRequestSchema,
  OAuthSignInResultSchema,
);

/** Starts Google's authorization-code flow (the redirect alternative to the GSI button). */
export const googleLoginUrlRpc = rpc(
  'auth',
  'google-login-url',
  LoginUrlRequestSchema,
  LoginUrlResponseSchema,
);

/** Finishes Google's redirect flow: state, code exchange, ID token verification. */
export const signInGoogleCodeRpc = rpc(
  'auth',
  'sign-in-google-code',
  OAuthCallbackRequestSchema,
  OAuthSignInResultSchema,
);

/** Signs in with a Google ID token; `unauthorized` when it does not verify. */
export const signInGoogleRpc = rpc('auth', 'sign-in-google', GoogleCredentialRequestSchema, SignInSchema);

/** svc.auth.sign-in-local's request: the form's fields and the address they came from. */
export const LocalSignInCallSchema = Type.Object(
  {
    ...LocalSignInRequestSchema.properties,
    /** The client's address as the gateway sees it (TRUST_PROXY): failures are counted per address too. */
    client_address: Type.String({ minLength: 1, maxLength: 100 }),
  },
  { additionalProperties: false },
);
export type LocalSignInCall = Static<typeof LocalSignInCallSchema>;

/**
 * Local account (embedded mode without providers); `forbidden` when not enabled,
 * `rate_limited` (with `retryAfterMs`) past a failure limit or when too many checks run at once.
 */
export const signInLocalRpc = rpc('auth', 'sign-in-local', LocalSignInCallSchema, SignInSchema);
/**
 * How long the gateway waits for a local sign-in: up to two password hashes (a check, and a
 * rehash of an older hash), each about 0.4 s of a core when idle and many times that on a
 * busy machine (a 2-core machine at a load of 20 took over 15 s), after a wait for a free
 * hashing slot of at most a third of this (the auth service answers "busy", 429, past it).
 * The default 5 s of a call answered 504 on a busy machine.
 */
export const SIGN_IN_LOCAL_TIMEOUT_MS = 30_000;

export const VerifySessionResultSchema = Type.Union([
  Type.Object({
    valid: Type.Literal(true),
    user: AuthUserSchema,
    session_id: Type.String(),
    /** Epoch ms after which this answer must not be reused (token or session end). */
    valid_until: Type.Number(),
    session_expires_at: Type.String(),
  }),
  Type.Object({ valid: Type.Literal(false) }),
]);
export type VerifySessionResult = Static<typeof VerifySessionResultSchema>;

/**
 * Checks an access token: signature, algorithm, iss/aud, expiry, and that its session is
 * live. An expired token is refused, wherever it was presented: a new one comes only from
 * the refresh credential (refreshSessionRpc).
 */
export const verifySessionRpc = rpc(
  'auth',
  'verify-session',
  Type.Object({ token: Type.String({ maxLength: 8192 }) }),
  VerifySessionResultSchema,
);

/**
 * Trades a refresh credential for a new access token and a new credential (rotation).
 * `unauthorized` when it is unknown, its session ended, or it was used before: a reused
 * credential means a copy exists, so its whole session is revoked.
 */
export const refreshSessionRpc = rpc(
  'auth',
  'refresh-session',
  Type.Object({ refresh_token: Type.String({ minLength: 1, maxLength: 512 }) }),
  SignInSchema,
);

/** A one-time WebSocket ticket for a live session (the signed-in caller's). */
export const socketTicketRpc = rpc(
  'auth',
  'socket-ticket',
  Type.Object({ session_id: Type.String() }),
  SocketTicketResponseSchema,
);

/** Redeems a WebSocket ticket: once, within its minute, while its session lives. */
export const redeemSocketTicketRpc = rpc(
  'auth',
  'redeem-socket-ticket',
  Type.Object({ ticket: Type.String({ maxLength: 512 }) }),
  VerifySessionResultSchema,
);

/** Revokes the session of a token (logout); expired tokens with a good signature count. */
export const revokeSessionRpc = rpc(
  'auth',
  'revoke-session',
  Type.Object({ token: Type.String({ maxLength: 8192 }) }),
  Type.Object({ revoked: Type.Boolean(), session_id: Type.Union([Type.String(), Type.Null()]) }),
);

/** One user by id; `not_found` otherwise. */
export const getUserRpc = rpc('auth', 'get-user', Type.Object({ user_id: Type.String() }), AuthUserSchema);

/**
 * Published (core, not durable) when a session is revoked. Every gateway replica listens
 * without a queue group and drops its cached check of that session.
 */
export const sessionRevokedEvent = busEvent(
  'auth',
  'session-revoked',
  Type.Object({ session_id: Type.String(), user_id: Type.String() }),
);

/** svc.auth.count-users: how many users there are (the admin dashboard's Total Users). */
export const countUsersRpc = rpc(
  'auth',
  'count-users',
  Type.Object({}),
  Type.Object({ total: Type.Integer({ minimum: 0 }) }),
);

/** Most users one users-by-ids call names. */
export const USERS_BY_IDS_MAX = 100;

/** svc.auth.users-by-ids: name and email of each known id (unknown ids are left out). */
export const usersByIdsRpc = rpc(
  'auth',
  'users-by-ids',
  Type.Object({ ids: Type.Array(Type.String({ maxLength: 100 }), { maxItems: USERS_BY_IDS_MAX }) }),
  Type.Object({
    users: Type.Array(
      Type.Object({
        id: Type.String(),
        username: Type.String(),
        email: Type.Union([Type.String(), Type.Null()]),
      }),
      { maxItems: USERS_BY_IDS_MAX },
    ),
  }),
);

/**
 * svc.auth.set-admin: sets or clears a user's stored admin flag (`pnpm admin:grant`). `user`
 * is a user id or a local account name (case-insensitive); else a username, which must name
 * one user only. `not_found` / `conflict` (ambiguous) otherwise. The answer's `is_admin` is
 * what the user has now, configured lists included; the gateways see the change when their
 * cached session check ends (SESSION_CACHE_TTL_MS), at the next sign-in at the latest.
 */
export const setAdminRpc = rpc(
  'auth',
  'set-admin',
  Type.Object({ user: Type.String({ minLength: 1, maxLength: 200 }), admin: Type.Boolean() }),
  Type.Object({
    id: Type.String(),
    username: Type.String(),
    /** The stored flag after the change. */
    stored_admin: Type.Boolean(),
    /** Effective rights: the stored flag or ADMIN_DISCORD_IDS / ADMIN_EMAILS / ADMIN_LOCAL_USERS. */
    is_admin: Type.Boolean(),
  }),
);

/**
 * svc.auth.user-by-discord-id: the user signed in with that Discord account (the voice bot
 * matches whoever runs /start to their Chronicler account). `not_found` when there is none.
 */
export const userByDiscordIdRpc = rpc(
  'auth',
  'user-by-discord-id',
  Type.Object({ discord_id: Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9]+$' }) }),
  AuthUserSchema,
);
