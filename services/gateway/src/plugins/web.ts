import fastifyStatic from '@fastify/static';
import fp from 'fastify-plugin';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Serves the built web app. Paths that are not files and not under /api get index.html,
 * so a reload on /groups/abc works; unknown /api paths keep their JSON 404.
 */
export default fp<{ root: string }>(
  async (app, opts) => {
    const built = existsSync(path.join(opts.root, 'index.html'));
    if (built) {
      await app.register(fastifyStatic, { root: opts.root, wildcard: false, index: ['index.html'] });
    } else {
      app.log.warn({ root: opts.root }, 'web app not built: run `pnpm build` (pnpm start does it for you)');
    }
    // The one not-found handler of the app: JSON for the API, the web app for page routes.
    app.setNotFoundHandler((req, reply) => {
      const url = req.url.split('?')[0] ?? '/';
      const isPage = req.method === 'GET' && !url.startsWith('/api/') && url !== '/api' && !path.extname(url);
      if (built && isPage) return reply.type('text/html').sendFile('index.html');
      return reply.code(404).send({ detail: `Not found: ${req.method} ${url}` });
    });
  },
  { name: 'web', dependencies: ['errors'] },
);
