import { listTranscriptsRpc, TranscriptListItemSchema } from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../../plugins/auth.ts';

/** /api/transcripts: sessions of the signed-in user. */
export default async function transcriptRoutes(app: FastifyInstance): Promise<void> {
  app.addHook('preHandler', requireAuth);

  app.get('/transcripts', { schema: { response: { 200: Type.Array(TranscriptListItemSchema) } } }, (req) =>
    call(app.ctx.bus, listTranscriptsRpc, { owner_id: req.user!.id }),
  );
}
