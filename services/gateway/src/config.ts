import { Env } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const defaultWebDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web/dist');

export const GatewayConfigSchema = Type.Object({
  PORT: Env.port(8000),
  /**
   * A gateway process of its own is in the cluster, behind a Service: every interface. The
   * embedded runner defaults it to 127.0.0.1 while the local sign-in is on.
   */
  HOST: Type.String({ default: '0.0.0.0', minLength: 1 }),
  /** The built web app (vite build output) served at /. */
  WEB_DIST: Type.String({ default: defaultWebDist }),
  /**
   * The address users reach us at (https://chronicler.example). Builds OAuth redirect URIs
   * and the post-sign-in redirect; https here makes cookies Secure. Default: the request's own.
   */
  PUBLIC_URL: Type.Optional(Env.url()),
  /**
   * Proxies whose X-Forwarded-* headers are believed (fastify `trustProxy`: addresses, CIDRs,
   * names such as `loopback`). Default none: anyone can send X-Forwarded-For, so believing it
   * from an address that is not a proxy lets a client pick its own rate-limit key. Behind an
   * ingress, name the ingress's addresses.
   */
  TRUST_PROXY: Type.String({ default: '' }),
  /** Other origins allowed to send cookie-authenticated writes, e.g. the Vite dev server. */
  TRUSTED_ORIGINS: Env.list(),
  /**
   * Embedded mode without PUBLIC_URL: Host names (`name` for any port, `name:port` for one)
   * accepted on the OAuth sign-in routes besides localhost, 127.0.0.1 and [::1] on our port.
   */
  ALLOWED_HOSTS: Env.list(),
  DISCORD_BOT_INVITE_URL: Type.Optional(Env.url()),
  COMMUNITY_URL: Type.Optional(Env.url()),
  RATE_LIMIT_WINDOW_MS: Type.Integer({ default: 60_000, minimum: 1000 }),
  /** Requests per window per client address, on /api. */
  RATE_LIMIT_IP_MAX: Type.Integer({ default: 600, minimum: 1 }),
  /** Requests per window per signed-in user, on /api. */
  RATE_LIMIT_USER_MAX: Type.Integer({ default: 600, minimum: 1 }),
  /**
   * Requests per window per client address on the live feed entry (/api/live-ingest), instead
   * of the address and user limits: sized for live speech, hundreds of sessions from one
   * replay or bridge (three requests a turn), and never counted against a user's browser.
   */
  RATE_LIMIT_FEED_MAX: Type.Integer({ default: 60_000, minimum: 1 }),
  /** Sign-in attempts per window per client address. */
  RATE_LIMIT_SIGN_IN_MAX: Type.Integer({ default: 30, minimum: 1 }),
  /**
   * Reads of one shared link (/api/shared/{token}/…) per window per client address, apart from
   * sign-in: sized for a table of players behind one home router reading together.
   */
  RATE_LIMIT_SHARE_MAX: Type.Integer({ default: 300, minimum: 1 }),
  /**
   * With Redis: how often each gateway shares its counts of the address and user limits (ms).
   * 0: every request asks Redis. Sign-in limits always ask Redis.
   */
  RATE_LIMIT_SYNC_MS: Type.Integer({ default: 250, minimum: 0, maximum: 10_000 }),
  /**
   * The machine key of /api/live-ingest in a cluster (at least 32 characters, the same on
   * every gateway). Embedded mode makes one in DATA_DIR/live-ingest.key. Unset in a cluster:
   * only admins may use the entry.
   */
  LIVE_INGEST_KEY: Type.Optional(Type.String({ minLength: 32 })),
  /**
   * On SIGTERM, the live sockets are moved away in slices over this long (ms), each client
   * reconnecting through the load balancer to another gateway with its last seq: never every
   * viewer at once. Keep it under SHUTDOWN_TIMEOUT_MS (the chart's grace period less preStop).
   * 0 (a single process, `pnpm start`): all at once, nowhere else to go.
   */
  LIVE_DRAIN_MS: Type.Integer({ default: 0, minimum: 0, maximum: 600_000 }),
  /**
   * The fraction of requests written to the access log (one info line each: method, route
   * pattern, status, duration, trace id, user id), spread evenly; 0 turns the log off. 5xx
   * answers are always written while it is above 0.
   */
  ACCESS_LOG_SAMPLE: Type.Number({ default: 1, minimum: 0, maximum: 1 }),
  /** How long a gateway trusts a session check before asking the auth service again. */
  SESSION_CACHE_TTL_MS: Type.Integer({ default: 30_000, minimum: 0 }),
  /**
   * The most megabytes of session JSON a gateway keeps to answer GET /api/transcripts/{id}
   * again when the transcript service says it is unchanged (lib/content-cache.ts). 0: none kept.
   */
  CONTENT_CACHE_MB: Type.Integer({ default: 32, minimum: 0, maximum: 4096 }),
  /** How long a kept session may go unread before it is dropped (ms). */
  CONTENT_CACHE_IDLE_MS: Type.Integer({ default: 600_000, minimum: 1000 }),
});
