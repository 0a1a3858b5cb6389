import {
  AUDIO_BLOB_BUCKET,
  AUDIO_MAX_BYTES,
  AUDIO_RETENTION_MS,
  audioTooLargeMessage,
  createAudioTranscriptRpc,
  getTranscriptRpc,
  IdParamsSchema,
  keepTrackRpc,
  SESSION_AUDIO_BUCKET,
  tableLiveChunkRpc,
  tableLiveEndRpc,
  tableLiveStartRpc,
  transcriptExistsRpc,
  transcribeNowRpc,
  SESSION_NAME_MAX,
  TABLE_RECORDING_BUCKET,
  TranscriptListItemSchema,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import { sniffAudio } from '@chronicler/speech';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { requireAuth } from '../../plugins/auth.ts';
import { ffmpegPath } from '../recordings/media.ts';

/** The largest chunk accepted: a few seconds of Opus is a few tens of KB; 4 MiB is generous. */
const CHUNK_MAX_BYTES = 4 * 1024 * 1024;
/** The parts of one recording (a part: what one MediaRecorder made, from start or a resume to its end). */
const PARTS_MAX = 1000;
/** The chunks of one part (a chunk every few seconds: more than a day). */
const CHUNKS_MAX = 100_000;
/** The containers MediaRecorder writes for Opus. */
const CHUNK_TYPES: Record<string, 'webm' | 'ogg'> = { 'audio/webm': 'webm', 'audio/ogg': 'ogg' };

const notFound = () => new ServiceError('not_found', 'Recording not found');

interface Description {
  owner_id: string;
  name: string;
  session_date: string;
  group_id: string | null;
  format: 'webm' | 'ogg';
  /**
   * Transcribed live by the voice bot's pipeline (a streaming provider is set): the session
   * exists from the start (its id is the recording's) and its lines come as the chunks do.
   */
  live?: boolean;
  /** The session it became, once finished. */
  transcript?: TranscriptListItem;
}

const metaName = (id: string) => `${id}/meta`;
const chunkName = (id: string, part: number, seq: number) => `${id}/${part}/${seq}`;

async function readDescription(bus: Bus, id: string): Promise<Description | null> {
  const stream = await bus.blobs.get(TABLE_RECORDING_BUCKET, metaName(id));
  if (!stream) return null;
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as Description;
}

const writeDescription = (bus: Bus, id: string, d: Description) =>
  bus.blobs.put(TABLE_RECORDING_BUCKET, metaName(id), Readable.from([Buffer.from(JSON.stringify(d))]), {
    contentType: 'application/json',
  });

/** The caller's recording, else 404 (another user's as a missing one). */
async function ownRecording(bus: Bus, ownerId: string, id: string): Promise<Description> {
  const d = /^[0-9a-f-]{36}$/.test(id) ? await readDescription(bus, id) : null;
  if (!d || d.owner_id !== ownerId) throw notFound();
  return d;
}

/** Every chunk of one part, one after the other, streamed from the store. */
async function* partBytes(bus: Bus, id: string, part: number, count: number): AsyncGenerator<Buffer> {
  for (let seq = 0; seq < count; seq++) {
    const s = await bus.blobs.get(TABLE_RECORDING_BUCKET, chunkName(id, part, seq));
    if (!s) throw new ServiceError('conflict', `Chunk ${seq} of part ${part} is missing`);
    for await (const c of s) yield c as Buffer;
  }
}

/**
 * Several parts (the recording was resumed after a reload) are several streams, each with its
 * own header and clock: ffmpeg's concat demuxer joins them into one (stream copy, no
 * re-encoding), each part's time after the one before. Without ffmpeg the parts are kept one
 * after the other as they are (every byte kept; a player may stop at the first part's end).
 */
async function joinParts(
  bus: Bus,
  id: string,
  counts: number[],
  format: 'webm' | 'ogg',
): Promise<AsyncIterable<Buffer>> {
  const ffmpeg = counts.length > 1 ? ffmpegPath() : null;
  if (!ffmpeg) {
    return (async function* () {
      for (let p = 0; p < counts.length; p++) yield* partBytes(bus, id, p, counts[p]!);
    })();
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'table-recording-'));
  try {
    const list: string[] = [];
    for (let p = 0; p < counts.length; p++) {
      const file = path.join(dir, `part-${p}.${format}`);
      await pipeline(partBytes(bus, id, p, counts[p]!), createWriteStream(file));
      list.push(`file '${file}'`);
    }
    await writeFile(path.join(dir, 'list.txt'), list.join('\n'));
    const out = path.join(dir, `joined.${format}`);
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        ffmpeg,
        [
          '-hide_banner',
          '-loglevel',
          'error',
          '-nostdin',
          '-f',
          'concat',
          '-safe',
          '0',
          '-i',
          'list.txt',
        ].concat(['-c', 'copy', '-f', format, out]),
        { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString().slice(0, 2000)));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg: ${stderr.trim()}`))));
    });
    return (async function* () {
      try {
        for await (const c of createReadStream(out)) yield c as Buffer;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    })();
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

const CreateBody = Type.Object({
  name: Type.String({ maxLength: SESSION_NAME_MAX }),
  session_date: Type.String({ maxLength: 64 }),
  group_id: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
  mime_type: Type.String({ maxLength: 100 }),
});
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const ChunkQuery = Type.Object({
  part: Type.Integer({ minimum: 0, maximum: PARTS_MAX - 1 }),
  seq: Type.Integer({ minimum: 0, maximum: CHUNKS_MAX - 1 }),
});
const FinishBody = Type.Object({
  /** How many chunks each part has (part 0 first). */
  chunk_counts: Type.Array(Type.Integer({ minimum: 1, maximum: CHUNKS_MAX }), {
    minItems: 1,
    maxItems: PARTS_MAX,
  }),
});

/**
 * /api/table-recordings: a session recorded in the browser ("Record at the table"). The page
 * sends the microphone's audio in chunks as it is recorded, each named by its part and
 * sequence number, stored at once in the blob store (the object store in the cluster, the
 * data directory in embedded mode) and acknowledged; a chunk sent again is stored once. At
 * the end the chunks are joined, in order, into the session's recording, handed to the
 * transcript service like an upload.
 */
export default async function tableRecordingRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;
  // A recording abandoned (never finished) goes with the bucket's age limit.
  await bus.blobs.expireAfter(TABLE_RECORDING_BUCKET, AUDIO_RETENTION_MS);

  app.addContentTypeParser(
    Object.keys(CHUNK_TYPES),
    { parseAs: 'buffer', bodyLimit: CHUNK_MAX_BYTES },
    (_req, body, done) => done(null, body),
  );

  app.post(
    '/table-recordings',
    {
      schema: {
        body: CreateBody,
        response: {
          200: Type.Object({ id: Type.String(), chunk_max_bytes: Type.Integer(), live: Type.Boolean() }),
        },
      },
    },
    async (req) => {
      const name = req.body.name.trim();
      if (!name) throw new ServiceError('bad_request', 'Session name is required');
      if (!Number.isFinite(Date.parse(req.body.session_date))) {
        throw new ServiceError('bad_request', 'Invalid session date');
      }
      const format = CHUNK_TYPES[req.body.mime_type.split(';')[0]!.trim().toLowerCase()];
      if (!format) {
        throw new ServiceError(
          'unsupported_media_type',
          `Recordings must be audio/webm or audio/ogg (Opus); this browser offers ${req.body.mime_type || 'nothing'}`,
        );
      }
      const id = randomUUID();
      const d: Description = {
        owner_id: req.user!.id,
        name,
        session_date: req.body.session_date,
        group_id: req.body.group_id || null,
        format,
      };
      await writeDescription(bus, id, d);
      // With a streaming provider the voice bot transcribes it live; without one (or with no
      // voice bot answering) it is kept and transcribed at the end, like an upload.
      const live = await call(
        bus,
        tableLiveStartRpc,
        { id, owner_id: d.owner_id, name, group_id: d.group_id, format },
        { timeoutMs: 15_000 },
      ).then(
        (r) => r.live,
        (err: unknown) => {
          req.log.warn({ err, id }, 'table recording not transcribed live: the voice bot did not take it');
          return false;
        },
      );
      if (live) {
        await writeDescription(bus, id, { ...d, live });
        // The session is made from its start message (a durable consumer, at once in embedded
        // mode, a moment later in the cluster): the page watches it as soon as this answers.
        for (let waited = 0; waited < 10_000; waited += 100) {
          const { exists } = await call(bus, transcriptExistsRpc, { owner_id: d.owner_id, id });
          if (exists) break;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      return { id, chunk_max_bytes: CHUNK_MAX_BYTES, live };
    },
  );

  app.post(
    '/table-recordings/:id/chunks',
    {
      schema: {
        params: IdParams,
        querystring: ChunkQuery,
        response: { 200: Type.Object({ part: Type.Integer(), seq: Type.Integer(), stored: Type.Boolean() }) },
      },
    },
    async (req) => {
      const d = await ownRecording(bus, req.user!.id, req.params.id);
      if (d.transcript) throw new ServiceError('conflict', 'This recording is finished');
      const declared = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (CHUNK_TYPES[declared] !== d.format) {
        throw new ServiceError(
          'unsupported_media_type',
          `This recording takes audio/${d.format} chunks; this one is ${declared || 'untyped'}`,
        );
      }
      const body = req.body as Buffer;
      if (!Buffer.isBuffer(body) || body.length === 0) {
        throw new ServiceError('bad_request', 'The chunk is empty');
      }
      const { part, seq } = req.query;
      const name = chunkName(req.params.id, part, seq);
      // The live pipeline feeds it (and any before it it has not had) once stored.
      const feedLive = () => {
        if (!d.live) return;
        call(bus, tableLiveChunkRpc(req.params.id), { part, seq }, { timeoutMs: 120_000 }).catch(
          (err: unknown) =>
            req.log.debug({ err, id: req.params.id, part, seq }, 'table recording chunk not fed live'),
        );
      };
      // Sent again (its answer was lost): stored once, the first copy kept.
      if (await bus.blobs.info(TABLE_RECORDING_BUCKET, name)) {
        feedLive();
        return { part, seq, stored: false };
      }
      // A part starts with its container's header: anything else cannot be played.
      if (seq === 0 && sniffAudio(body.subarray(0, 64)) !== d.format) {
        throw new ServiceError(
          'unsupported_media_type',
          `The first chunk of a part must begin with the audio/${d.format} header; this one is ${sniffAudio(body.subarray(0, 64)) ?? 'not audio the server can decode'}`,
        );
      }
      await bus.blobs.put(TABLE_RECORDING_BUCKET, name, Readable.from([body]), { contentType: declared });
      feedLive();
      return { part, seq, stored: true };
    },
  );

  app.post(
    '/table-recordings/:id/finish',
    { schema: { params: IdParams, body: FinishBody, response: { 200: TranscriptListItemSchema } } },
    async (req) => {
      const id = req.params.id;
      const d = await ownRecording(bus, req.user!.id, id);
      if (d.transcript) return d.transcript;
      const counts = req.body.chunk_counts;
      const missing: string[] = [];
      let size = 0;
      for (let p = 0; p < counts.length; p++) {
        for (let seq = 0; seq < counts[p]!; seq++) {
          const info = await bus.blobs.info(TABLE_RECORDING_BUCKET, chunkName(id, p, seq));
          if (info) size += info.size;
          else if (missing.length < 20) missing.push(`${p}/${seq}`);
        }
      }
      if (missing.length > 0) {
        throw new ServiceError('conflict', `Chunks not received yet (part/seq): ${missing.join(', ')}`);
      }
      if (size > AUDIO_MAX_BYTES) throw new ServiceError('payload_too_large', audioTooLargeMessage(size));
      const item = d.live ? await finishLive(id, d, counts) : await finishUpload(id, d, counts);
      // The session now holds the recording: the chunks may go (the description stays, so a
      // finish sent again answers the same session).
      await writeDescription(bus, id, { ...d, transcript: item });
      for (let p = 0; p < counts.length; p++) {
        for (let seq = 0; seq < counts[p]!; seq++) {
          await bus.blobs.delete(TABLE_RECORDING_BUCKET, chunkName(id, p, seq)).catch(() => false);
        }
      }
      return item;
    },
  );

  /**
   * A live recording: its session already holds the lines. The pipeline feeds the last chunks
   * and ends the session; the recording is kept as the session's one track (time 0 = its
   * start, as the lines' times), like a bot session's speaker tracks.
   */
  async function finishLive(id: string, d: Description, counts: number[]): Promise<TranscriptListItem> {
    await call(bus, tableLiveEndRpc(id), { chunk_counts: counts }, { timeoutMs: 120_000 }).catch(
      (err: unknown) => {
        // Ended already (a finish sent again), or the voice bot that had it is gone.
        if (!(ServiceError.is(err) && err.code === 'unavailable')) throw err;
      },
    );
    const blob = `${id}/table.${d.format}`;
    const stored = await bus.blobs.put(
      SESSION_AUDIO_BUCKET,
      blob,
      await joinParts(bus, id, counts, d.format),
      {
        contentType: `audio/${d.format}`,
      },
    );
    const kept = await call(bus, keepTrackRpc, {
      owner_id: d.owner_id,
      transcript_id: id,
      speaker: 'Table',
      blob,
      size: stored.size,
      format: d.format,
    });
    if (!kept.kept) throw notFound();
    const {
      content,
      transcription_retryable: _retryable,
      ...session
    } = await call(bus, getTranscriptRpc, {
      owner_id: d.owner_id,
      id,
    });
    return { ...session, preview: content.length > 100 ? `${content.slice(0, 100)}...` : content };
  }

  /** Not live: the joined recording goes to the transcript service like an upload. */
  async function finishUpload(id: string, d: Description, counts: number[]): Promise<TranscriptListItem> {
    const blob = randomUUID();
    const stored = await bus.blobs.put(AUDIO_BLOB_BUCKET, blob, await joinParts(bus, id, counts, d.format), {
      contentType: `audio/${d.format}`,
    });
    let item: TranscriptListItem;
    try {
      item = await call(bus, createAudioTranscriptRpc, {
        owner_id: d.owner_id,
        name: d.name,
        session_date: d.session_date,
        group_id: d.group_id,
        blob,
        size: stored.size,
        format: d.format,
        filename: `recording.${d.format}`,
      });
    } catch (err) {
      await bus.blobs.delete(AUDIO_BLOB_BUCKET, blob).catch(() => false);
      throw err;
    }
    return item;
  }

  // "Transcribe now": a recording kept while no provider was set, queued like an upload.
  app.post(
    '/transcripts/:id/transcribe',
    { schema: { params: IdParamsSchema, response: { 200: TranscriptListItemSchema } } },
    (req) => call(bus, transcribeNowRpc, { owner_id: req.user!.id, id: req.params.id }),
  );
}
