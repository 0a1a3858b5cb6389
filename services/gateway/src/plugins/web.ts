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
    const index = path.join(opts.root, 'index.html');
    if (!existsSync(index)) {
      app.log.warn({ root: opts.root }, 'web app not built: run `pnpm build` (pnpm start does it for you)');
      return;
    }
    await app.register(fastifyStatic, { root: opts.root, wildcard: false, index: ['index.html'] });
    app.setNotFoundHandler((req, reply) => {
      const url = req.url.split('?')[0] ?? '/';
      if (req.method !== 'GET' || url.startsWith('/api/') || url === '/api' || path.extname(url)) {
        return reply.code(404).send({ detail: `Not found: ${req.method} ${url}` });
      }
      return reply.type('text/html').sendFile('index.html');
    });
  },
  { name: 'web', dependencies: ['errors'] },
);
