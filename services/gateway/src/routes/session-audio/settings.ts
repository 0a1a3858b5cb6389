import {
  AUDIO_RETENTION_DAYS_MAX,
  AudioSettingsBodySchema,
  AudioSettingsSchema,
  audioSettingsRpc,
  AudioUsageSchema,
  audioUsageRpc,
} from '@chronicler/contracts';
import { call, ServiceError } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireAdmin } from '../../plugins/auth.ts';

/**
 * /api/users/audio-settings: the signed-in user's retention of kept recordings (days, or
 * null for forever) and the storage they take; /api/admin/audio-usage: everyone's, for admins.
 */
export default async function audioSettingsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const bus = app.ctx.bus;

  app.get('/users/audio-settings', { schema: { response: { 200: AudioSettingsSchema } } }, (req) =>
    call(bus, audioSettingsRpc, { owner_id: req.user!.id }),
  );

  app.put(
    '/users/audio-settings',
    { schema: { body: AudioSettingsBodySchema, response: { 200: AudioSettingsSchema } } },
    (req) => {
      const days = req.body.retention_days;
      if (days !== null && !(days >= 1 && days <= AUDIO_RETENTION_DAYS_MAX)) {
        throw new ServiceError(
          'bad_request',
          `retention_days must be a whole number of days from 1 to ${AUDIO_RETENTION_DAYS_MAX}, or null to keep recordings`,
        );
      }
      return call(bus, audioSettingsRpc, { owner_id: req.user!.id, retention_days: days });
    },
  );

  app.get(
    '/admin/audio-usage',
    { preHandler: requireAdmin, schema: { response: { 200: AudioUsageSchema } } },
    () => call(bus, audioUsageRpc, {}),
  );
}
