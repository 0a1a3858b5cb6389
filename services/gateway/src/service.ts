import { defineService, Env, packageVersion } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from './app.ts';

const defaultWebDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web/dist');

export const GatewayConfigSchema = Type.Object({
  PORT: Env.port(8000),
  HOST: Type.String({ default: '0.0.0.0' }),
  /** The built web app (vite build output) served at /. */
  WEB_DIST: Type.String({ default: defaultWebDist }),
});

export default defineService({
  name: 'gateway',
  version: packageVersion(import.meta.url),
  config: GatewayConfigSchema,
  servesOps: true,
  async start(ctx) {
    const app = await buildApp(ctx);
    await app.listen({ host: ctx.config.HOST, port: ctx.config.PORT });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : ctx.config.PORT;
    ctx.logger.info({ url: `http://localhost:${port}` }, 'gateway listening');
    return {
      port,
      async stop() {
        await app.close();
      },
    };
  },
});
