import helmet from '@fastify/helmet';
import fp from 'fastify-plugin';

const GOOGLE_GSI = 'https://accounts.google.com/gsi/';

/**
 * Security headers for the API and the web app. The CSP fits the Vite-built React app:
 * its own scripts only; Google Identity Services' script, styles, iframe and calls;
 * avatars from Discord's CDN and Google; ws/wss to our own origin (the chat, planning and
 * live sockets). HSTS only over https: on plain http (the embedded mode on a laptop) it
 * would be ignored at best and pin a LAN name to https at worst.
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
    await app.register(helmet, {
      global: true,
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
    app.addHook('onSend', async (req, reply) => {
      const https = cfg.PUBLIC_URL ? cfg.PUBLIC_URL.startsWith('https:') : req.protocol === 'https';
      if (https) reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
    });
  },
  { name: 'security' },
);
