import { httpRequests, httpRequestSeconds } from '@chronicler/kit';
import fp from 'fastify-plugin';

/** Counts and times every request by its route pattern (never the raw URL: ids would explode the labels). */
export default fp(
  async (app) => {
    app.addHook('onResponse', async (req, reply) => {
      const route = req.routeOptions.url ?? 'unmatched';
      httpRequests.inc({ method: req.method, route, status: String(reply.statusCode) });
      httpRequestSeconds.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    });
  },
  { name: 'http-metrics' },
);
