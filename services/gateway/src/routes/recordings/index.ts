import { recordingFileRpc, RecordingParamsSchema, SESSION_AUDIO_BUCKET } from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { create as contentDisposition } from 'content-disposition';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { byteRange } from '../session-audio/range.ts';
import { requireFfmpeg, transcode, zipStream } from './media.ts';

const gone = () => new ServiceError('not_found', 'This recording is no longer kept');

async function openBlob(bus: Bus, blob: string, range?: { start: number; end: number }): Promise<Readable> {
  const source = await bus.blobs.get(SESSION_AUDIO_BUCKET, blob, range);
  if (!source) throw gone();
  return source;
}

/**
 * /api/recordings/{token}/{file}: the downloads /recording hands out, outside sign-in: the
 * link's signature is the authority (checked by the transcript service, which alone holds
 * the key). `speakers/<name>.ogg` is a speaker's track as kept (with byte ranges),
 * `speakers/<name>.flac` the same as FLAC, `mixed.ogg|flac` every track mixed, `all.zip` the
 * per-speaker Ogg files; FLAC and the mix are made by the system's ffmpeg as they stream (503
 * without it). A tampered link or a gone session answers 404, an expired link 410.
 */
export default async function recordingRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const bus = app.ctx.bus;

  const serve = async (req: FastifyRequest, reply: FastifyReply, token: string, file: string) => {
    const opened = await call(bus, recordingFileRpc, { token, file });
    if (opened.status === 'expired') {
      return reply
        .code(410)
        .type('application/json; charset=utf-8')
        .send({ detail: 'This download link has expired: ask the bot for a new one with /recording' });
    }
    if (opened.status !== 'ok') throw new ServiceError('not_found', 'No such download');
    const base = opened.name.trim() || 'recording';
    reply.header('cache-control', 'private, no-store');
    const attach = (name: string) => reply.header('content-disposition', contentDisposition(name));

    if (file === 'all.zip') {
      attach(`${base}.zip`).header('content-type', 'application/zip');
      return reply.send(
        zipStream(
          opened.tracks.map((t) => ({ name: `${t.speaker}.ogg`, open: () => openBlob(bus, t.blob) })),
        ),
      );
    }
    const speaker = /^speakers\/(.+)\.(ogg|flac)$/.exec(file);
    const mixed = /^mixed\.(ogg|flac)$/.exec(file);
    const ext = (speaker?.[2] ?? mixed?.[1]) as 'ogg' | 'flac' | undefined;
    if (!ext) throw new ServiceError('not_found', 'No such download');
    const tracks = speaker ? opened.tracks.filter((t) => t.speaker === speaker[1]) : opened.tracks;
    if (tracks.length === 0) throw gone();
    const name = `${base} - ${speaker ? speaker[1] : 'mixed'}.${ext}`;

    if (speaker && ext === 'ogg') {
      const track = tracks[0]!;
      attach(name).header('accept-ranges', 'bytes').header('content-type', track.content_type);
      const range = byteRange(req.headers.range, track.size);
      if (range === 'unsatisfiable') {
        return reply.code(416).header('content-range', `bytes */${track.size}`).send();
      }
      // Read from the range's offset in the store, not from the start.
      const source = await openBlob(bus, track.blob, range ?? undefined);
      if (range === null) return reply.header('content-length', String(track.size)).send(source);
      reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${track.size}`)
        .header('content-length', String(range.end - range.start + 1));
      return reply.send(source);
    }

    const ffmpeg = requireFfmpeg();
    const inputs = await Promise.all(tracks.map((t) => openBlob(bus, t.blob)));
    const out = transcode(ffmpeg, inputs, ext, (err) =>
      req.log.warn({ err, file }, 'recording download: ffmpeg failed'),
    );
    reply.raw.on('close', out.stop);
    attach(name).header('content-type', ext === 'flac' ? 'audio/flac' : 'audio/ogg');
    return reply.send(out.stream);
  };

  app.get(
    '/recordings/:token/:file',
    { config: { public: true }, schema: { params: RecordingParamsSchema } },
    (req, reply) => serve(req, reply, req.params.token, req.params.file),
  );
  app.get(
    '/recordings/:token/speakers/:file',
    { config: { public: true }, schema: { params: RecordingParamsSchema } },
    (req, reply) => serve(req, reply, req.params.token, `speakers/${req.params.file}`),
  );
}
