import fp from 'fastify-plugin';
import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

const GOOGLE_GSI = 'https://accounts.google.com/gsi/';

/**
 * Security headers for the API and the web app. The CSP fits the Vite-built React app:
 * its own scripts only; Google Identity Services' script, styles, iframe and calls;
 * avatars from Discord's CDN and Google; ws/wss to our own origin (the chat, planning and
 * live sockets). HSTS only over https: on plain http (the embedded mode on a laptop) it
 * would be ignored at best and pin a LAN name to https at worst.
 *
 * The headers depend on configuration only, so helmet runs once at start and each request
 * gets the same list. (@fastify/helmet built helmet's middleware, CSP parsing included,
 * again for every request: 4% of the gateway's CPU under load.)
 */
export default fp(
  async (app) => {
    const cfg = app.ctx.config;
    const socketOrigins: string[] = [];
    if (cfg.PUBLIC_URL) {
      const u = new URL(cfg.PUBLIC_URL);
      // Older Safari does not count ws(s) to our own host as 'self'.
      socketOrigins.push(`${u.protocol === 'https:' ? 'wss' : 'ws'}://${u.host}`);
    }
    const headers = staticHeaders({
      hsts: false,
      // The GSI button opens Google's popup and reads its answer.
      crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
      crossOriginEmbedderPolicy: false,
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'", `${GOOGLE_GSI}client`],
          styleSrc: ["'self'", "'unsafe-inline'", `${GOOGLE_GSI}style`],
          frameSrc: [GOOGLE_GSI],
          connectSrc: ["'self'", GOOGLE_GSI, ...socketOrigins],
          imgSrc: [
            "'self'",
            'data:',
            'blob:',
            'https://cdn.discordapp.com',
            'https://*.googleusercontent.com',
          ],
          fontSrc: ["'self'", 'data:'],
          objectSrc: ["'none'"],
          baseUri: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
        },
      },
    });
    const hsts = 'max-age=31536000; includeSubDomains';
    app.addHook('onRequest', (req, reply, done) => {
      const res = reply.raw;
      for (const [name, value] of headers) res.setHeader(name, value);
      const https = cfg.PUBLIC_URL ? cfg.PUBLIC_URL.startsWith('https:') : req.protocol === 'https';
      if (https) res.setHeader('strict-transport-security', hsts);
      done();
    });
  },
  { name: 'security' },
);

/** The headers helmet sets for these options (none of which depends on the request). */
function staticHeaders(options: Parameters<typeof helmet>[0]): [string, string][] {
  const headers = new Map<string, string>();
  const res = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.set(name.toLowerCase(), String(value));
      return this;
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase());
    },
  };
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, () => {});
  return [...headers];
}
