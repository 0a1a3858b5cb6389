import { context, trace } from '@opentelemetry/api';
import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/** What a redacted value is replaced with, in fields and in URL query strings alike. */
export const REDACTED = '[REDACTED]';

/**
 * Query parameters that carry credentials: a token some client put in a URL (`?token=`), the
 * one-time socket ticket, OAuth codes and states (replayable until used), Google's credential, and anything called a password.
 */
const SECRET_QUERY_PARAMS = new Set([
  'token',
  'access_token',
  'ticket',
  'code',
  'state',
  'credential',
  'password',
]);

/** Field names whose values are secrets wherever they appear in a logged object. */
const SECRET_KEYS = [
  'token',
  'access_token',
  'refresh_token',
  'reissued_token',
  'id_token',
  'password',
  'new_password',
  'current_password',
  'credential',
  'client_secret',
  'secret',
];

const SECRET_HEADERS = ['authorization', 'cookie', 'auth-token', 'set-cookie'];

const REDACT_PATHS = [
  ...['req.headers', 'res.headers', 'headers'].flatMap((h) => SECRET_HEADERS.map((n) => `${h}["${n}"]`)),
  // Up to two levels deep: enough for `{ body: { password } }` and `{ err: { details: { token } } }`
  // without paying for a deep scan of every line.
  ...SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]),
];

/**
 * The user info of every absolute URL in `text` (`nats://user:pass@host`, `postgres://u:p@h`,
 * `redis://:pass@h`, a provider's `https://key@host`), replaced by [REDACTED]; anything else
 * is kept. Works on a single URL, a comma-separated server list and free text alike.
 */
export function redactUserInfo(text: string): string {
  return text.includes('://') ? text.replace(USER_INFO, `$1${REDACTED}@`) : text;
}
// scheme://userinfo@ — userinfo may hold no '/', '?', '#', '@', whitespace or quote (RFC 3986).
const USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>\\]+@/gi;

/**
 * The URL with its user info (user and password) and the values of credential-carrying query
 * parameters replaced by [REDACTED]; the host, the path and every other parameter are kept as
 * they were, so the line stays useful. Use it on every URL that reaches a log or an error.
 */
export function redactUrl(url: string): string {
  url = redactUserInfo(url);
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const end = hash < 0 ? url.length : hash;
  const query = url
    .slice(q + 1, end)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      return SECRET_QUERY_PARAMS.has(queryName(rawName)) ? `${rawName}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}${url.slice(end)}`;
}

/** The parameter name as a server would read it (`%74oken` and `TOKEN` are both `token`). */
function queryName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

interface RequestLike {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remoteAddress?: string; remotePort?: number };
}

/**
 * Replaces fastify's own `req` serializer (a logger instance's serializers win over
 * fastify's), which would log the raw URL, `?token=` included, on every request.
 */
function serializeRequest(req: unknown): unknown {
  if (!req || typeof req !== 'object') return req;
  const r = req as RequestLike;
  if (r.socket) {
    return {
      method: r.method,
      url: typeof r.url === 'string' ? redactUrl(r.url) : r.url,
      host: r.host ?? r.headers?.host,
      remoteAddress: r.ip ?? r.socket.remoteAddress,
      remotePort: r.socket.remotePort,
    };
  }
  return typeof r.url === 'string' ? { ...r, url: redactUrl(r.url) } : req;
}

const serializeUrl = (url: unknown): unknown => (typeof url === 'string' ? redactUrl(url) : url);

/**
 * pino JSON to stdout, one line per event. Every line carries the service name and,
 * when a span is active, its trace and span ids; request and message ids are added with
 * child loggers (`log.child({ reqId })`, `log.child({ msgId })`). The embedded runner
 * passes `null` and names each service in a child, so no line carries `service` twice.
 *
 * Secrets never reach the output: credential headers and fields are redacted, the `req` and
 * `url` serializers blank credential query parameters, and the user info of any URL anywhere
 * in a line (a message, an error's text or cause) is blanked as the line is written.
 */
export function createLogger(
  service: string | null,
  opts: { level?: string; destination?: pino.DestinationStream } = {},
): Logger {
  const options: LoggerOptions = {
    level: opts.level ?? 'info',
    base: service ? { service } : {},
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const span = trace.getSpan(context.active());
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { traceId, spanId };
    },
    serializers: { req: serializeRequest, url: serializeUrl },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    // The last gate: whatever put a `scheme://user:password@` into a line (a library's error,
    // a message built from a connection string), the password does not reach the output.
    hooks: { streamWrite: redactUserInfo },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
