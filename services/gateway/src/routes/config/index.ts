import { AppConfigSchema, audioConfigRpc, type AppConfig } from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import type { FastifyInstance } from 'fastify';

/** GET /api/config: public settings the web client shows before sign-in (the welcome page's links). */
export default async function configRoutes(app: FastifyInstance): Promise<void> {
  const body: Omit<AppConfig, 'speech_provider'> = {
    bot_invite_url: app.ctx.config.DISCORD_BOT_INVITE_URL ?? null,
    community_url: app.ctx.config.COMMUNITY_URL ?? null,
  };
  app.get(
    '/config',
    { config: { public: true }, schema: { response: { 200: AppConfigSchema } } },
    async (): Promise<AppConfig> => {
      // The transcript service owns the speech configuration; if it cannot answer, the form
      // learns of it at upload time instead.
      const speech = await call(app.ctx.bus, audioConfigRpc, {}, { timeoutMs: 2000 }).catch(() => null);
      return { ...body, speech_provider: speech?.speech_provider ?? null };
    },
  );
}
