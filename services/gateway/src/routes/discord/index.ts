import {
  getServerSettingsRpc,
  guildDirectoryKey,
  GuildDirectorySchema,
  type GuildDirectory,
  ManagedGuildSchema,
  managedGuildsRpc,
  putServerSettingsRpc,
  ServerSettingsChangeSchema,
  ServerSettingsSchema,
} from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../../plugins/auth.ts';

const GuildParams = Type.Object({ guildId: Type.String({ maxLength: 30 }) });

/** The guild, if the user manages it (as Discord said at their last sign-in); else not found. */
async function managed(bus: Bus, userId: string, guildId: string) {
  const { items } = await call(bus, managedGuildsRpc, { user_id: userId });
  const guild = items.find((g) => g.id === guildId);
  if (!guild) throw new ServiceError('not_found', 'Server not found');
  return guild;
}

/**
 * /api/discord/servers: the Discord servers the signed-in user manages (owner, Administrator or
 * Manage Server, from Discord's answer at their last sign-in) and the voice bot's settings of
 * each. Any other server is not found.
 */
export default async function discordRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;

  app.get(
    '/discord/servers',
    { schema: { response: { 200: Type.Array(ManagedGuildSchema) } } },
    async (req) => (await call(bus, managedGuildsRpc, { user_id: req.user!.id })).items,
  );

  app.get(
    '/discord/servers/:guildId/settings',
    { schema: { params: GuildParams, response: { 200: ServerSettingsSchema } } },
    async (req) => {
      await managed(bus, req.user!.id, req.params.guildId);
      return call(bus, getServerSettingsRpc, { guild_id: req.params.guildId });
    },
  );

  // The server's channels and roles for the settings page's pickers, as the voice bot last
  // described them; none known (the bot is not in the server): empty lists, updated_at null.
  app.get(
    '/discord/servers/:guildId/directory',
    { schema: { params: GuildParams, response: { 200: GuildDirectorySchema } } },
    async (req) => {
      await managed(bus, req.user!.id, req.params.guildId);
      const known = await app.ctx.coord.cache.get<GuildDirectory>(guildDirectoryKey(req.params.guildId));
      return known ?? { channels: [], roles: [], updated_at: null };
    },
  );

  app.put(
    '/discord/servers/:guildId/settings',
    {
      schema: {
        params: GuildParams,
        body: ServerSettingsChangeSchema,
        response: { 200: ServerSettingsSchema },
      },
    },
    async (req) => {
      await managed(bus, req.user!.id, req.params.guildId);
      return call(bus, putServerSettingsRpc, {
        guild_id: req.params.guildId,
        editor_id: req.user!.id,
        change: req.body,
      });
    },
  );
}
