import {
  AudioQuerySchema,
  AudioTracksSchema,
  IdParamsSchema,
  SESSION_AUDIO_BUCKET,
  sessionAudioRpc,
} from '@chronicler/contracts';
import { call, ServiceError } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../../plugins/auth.ts';
import { byteRange } from './range.ts';
import audioSettingsRoutes from './settings.ts';

const noAudio = () => new ServiceError('not_found', 'No recording kept for this session');

/**
 * /api/transcripts/{id}/audio: the recording a session kept, played by the viewer's player.
 * Served with range requests (a seek asks for the bytes from there), streamed from the blob
 * store (JetStream object store in the cluster) from the range's offset, never whole in memory. `?speaker=` picks
 * one speaker's track where a session has them (the voice bot's, Ogg/Opus as recorded, time 0
 * = the session's start); an upload has one track, the whole mix.
 */
export default async function sessionAudioRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;
  await app.register(audioSettingsRoutes);

  app.get(
    '/transcripts/:id/audio/tracks',
    { schema: { params: IdParamsSchema, response: { 200: AudioTracksSchema } } },
    async (req) => {
      const tracks = await call(bus, sessionAudioRpc, { owner_id: req.user!.id, id: req.params.id });
      const base = `/api/transcripts/${encodeURIComponent(req.params.id)}/audio`;
      return tracks.map((t) => ({
        speaker: t.speaker,
        size: t.size,
        format: t.format,
        content_type: t.content_type,
        url: t.speaker === null ? base : `${base}?speaker=${encodeURIComponent(t.speaker)}`,
      }));
    },
  );

  app.get(
    '/transcripts/:id/audio',
    { schema: { params: IdParamsSchema, querystring: AudioQuerySchema } },
    async (req, reply) => {
      const tracks = await call(bus, sessionAudioRpc, { owner_id: req.user!.id, id: req.params.id });
      const speaker = req.query.speaker ?? null;
      // Without ?speaker=: the whole recording (an upload), or for a session the voice bot
      // recorded per speaker, its first track by name (the player picks from /audio/tracks).
      const track =
        speaker === null
          ? (tracks.find((t) => t.speaker === null) ?? tracks[0])
          : tracks.find((t) => t.speaker === speaker);
      if (!track) throw noAudio();
      reply.header('accept-ranges', 'bytes').header('content-type', track.content_type);
      reply.header('cache-control', 'private, max-age=3600');
      const range = byteRange(req.headers.range, track.size);
      if (range === 'unsatisfiable') {
        return reply.code(416).header('content-range', `bytes */${track.size}`).send();
      }
      // A range is read from its offset in the store (a seek near the end of a long recording
      // reads what it plays, not the whole file before it).
      const source = await bus.blobs.get(SESSION_AUDIO_BUCKET, track.blob, range ?? undefined);
      if (!source) throw noAudio();
      if (range === null) {
        reply.header('content-length', String(track.size));
        return reply.send(source);
      }
      reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${track.size}`)
        .header('content-length', String(range.end - range.start + 1));
      return reply.send(source);
    },
  );
}
