import { AppConfigSchema, type AppConfig } from '@chronicler/contracts';
import type { FastifyInstance } from 'fastify';

/** GET /api/config: public settings the web client shows before sign-in (the welcome page's links). */
export default async function configRoutes(app: FastifyInstance): Promise<void> {
  const body: AppConfig = {
    bot_invite_url: app.ctx.config.DISCORD_BOT_INVITE_URL ?? null,
    community_url: app.ctx.config.COMMUNITY_URL ?? null,
  };
  app.get(
    '/config',
    { config: { public: true }, schema: { response: { 200: AppConfigSchema } } },
    () => body,
  );
}
