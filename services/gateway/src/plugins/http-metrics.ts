import { httpRequests, httpRequestSeconds } from '@chronicler/kit';
import fp from 'fastify-plugin';

/** Served by the process's ops listener (OPS_HOST:OPS_PORT), never on the public port. */
const OPS_PATHS = ['/metrics', '/healthz', '/readyz'];

/**
 * Counts and times every request by its route pattern (never the raw URL: ids would explode
 * the labels). The numbers are read on the ops port; here the ops paths answer a JSON 404,
 * as the web app's fallback would otherwise answer them with index.html and a 200 that a
 * probe or scraper pointed at the wrong port would take for success.
 */
export default fp(
  async (app) => {
    app.addHook('onResponse', async (req, reply) => {
      const route = req.routeOptions.url ?? 'unmatched';
      httpRequests.inc({ method: req.method, route, status: String(reply.statusCode) });
      httpRequestSeconds.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    });
    for (const url of OPS_PATHS) {
      app.get(url, async (_req, reply) => reply.code(404).send({ detail: `Not found: GET ${url}` }));
    }
  },
  { name: 'http-metrics' },
);
