import { ACCESS_TOKEN_COOKIE } from '@chronicler/contracts';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const DOCS_PREFIX = '/api/docs';
const OPENAPI_PATH = '/api/openapi.json';

/**
 * The gateway's OpenAPI 3.1 document, built by @fastify/swagger from the very schemas the
 * routes validate with, so it cannot drift from what the gateway accepts. Register it before
 * the routes: it collects them as they are added. The sockets (/api/ws/*) speak frames, not
 * request/response, and are left out.
 */
export default fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Chronicler API',
          version: app.ctx.version,
          description:
            'The REST API behind the Chronicler web app. Every route under /api needs a signed-in ' +
            'user unless it says otherwise; a token from POST /api/auth/local (or the sign-in ' +
            'cookie) is accepted in any of the three ways below. Lists are paged with `limit` and ' +
            '`after`; the next page is in the `Link` header. GET /api/transcripts also takes `q` ' +
            '(name or preview contains it, any case), `group_id` and `ungrouped=true`, kept in the ' +
            '`Link`. Errors answer `{ "detail": "..." }`.',
        },
        components: {
          securitySchemes: {
            cookie: { type: 'apiKey', in: 'cookie', name: ACCESS_TOKEN_COOKIE },
            bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            authToken: { type: 'apiKey', in: 'header', name: 'auth-token' },
          },
        },
        security: [{ cookie: [] }, { bearer: [] }, { authToken: [] }],
      },
      // Public routes declare no security requirement, so the reference shows them as open.
      transform: ({ schema, url, route }) => {
        const hidden = url.startsWith('/api/ws/') || !url.startsWith('/api');
        const open = (route.config as { public?: boolean } | undefined)?.public === true;
        const described = { ...schema, ...(hidden ? { hide: true } : {}) };
        return { schema: open ? { ...described, security: [] } : described, url };
      },
    });

    app.get(OPENAPI_PATH, { config: { public: true }, schema: { hide: true } }, () => app.swagger());

    // The reference page and its own static assets are public like the document they show.
    await app.register(async (docs) => {
      docs.addHook('onRoute', (route) => {
        route.config = { ...(route.config ?? {}), public: true };
      });
      await docs.register(swaggerUi, {
        routePrefix: DOCS_PREFIX,
        // The page loads only its own assets, which the security plugin's CSP already allows;
        // swagger-ui's own policy would replace that one.
        staticCSP: false,
        // The default validator badge loads an image from validator.swagger.io, which the CSP refuses.
        uiConfig: { validatorUrl: null, deepLinking: true },
      });
    });
  },
  { name: 'openapi', dependencies: ['auth'] },
);
