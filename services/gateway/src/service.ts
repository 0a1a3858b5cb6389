import { defineService, packageVersion } from '@chronicler/kit';
import { buildApp } from './app.ts';
import { GatewayConfigSchema } from './config.ts';

export default defineService({
  name: 'gateway',
  version: packageVersion(import.meta.url),
  config: GatewayConfigSchema,
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
