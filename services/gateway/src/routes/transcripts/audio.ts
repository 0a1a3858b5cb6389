import {
  AUDIO_BLOB_BUCKET,
  AUDIO_MAX_BYTES,
  audioInvalidTypeMessage,
  audioTooLargeMessage,
  createAudioTranscriptRpc,
  IdParamsSchema,
  tooLongMessage,
  retryAudioTranscriptionRpc,
  SESSION_NAME_MAX,
  SUMMARY_MAX,
  TranscriptListItemSchema,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { SNIFF_BYTES, sniffAudio, type AudioFormat } from '@chronicler/speech';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { pipeline, Transform } from 'node:stream';

/** Room for the form's text fields and multipart framing around the file. */
const FORM_OVERHEAD_BYTES = 256 * 1024;
/** A refused request whose rest is at most this big is read to its end, so the client sees the answer. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
/** The longest text field of the form; a longer one is refused, never cut. */
const FIELD_MAX_BYTES = 64 * 1024;

/** A refusal with the specification's message, answered 400 `{detail}`. */
class Refusal extends Error {}

/** A body that is not the multipart form its header announces. */
const MALFORMED_FORM = 'The upload is not a valid multipart form. Please try again.';

/**
 * The multipart parser's errors ('Unexpected end of multipart data', 'Boundary not found')
 * are plain Errors with no code, and reach us from the parts or from the file's stream
 * (through the blob store). They mean the body is malformed: a 400, not a 500. Everything
 * else keeps its meaning: our refusals, the plugin's limits (FST_*), service and system
 * errors (which carry a code), and programming errors (TypeError and the like).
 */
function asRefusal(err: unknown): unknown {
  const plainError = err instanceof Error && err.constructor === Error && !('code' in err);
  return plainError ? new Refusal(MALFORMED_FORM) : err;
}

/** The boundary of a multipart content type (RFC 2046: 1 to 70 characters), or null. */
function boundaryOf(contentType: string | undefined): string | null {
  const m = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  const boundary = m ? (m[1] ?? m[2] ?? '') : '';
  return boundary.length >= 1 && boundary.length <= 70 ? boundary : null;
}

/**
 * Counts the file's bytes (refusing past the cap) and judges its type by its first bytes:
 * the chunks before the verdict (at most SNIFF_BYTES) are the only ones held back.
 */
class AudioGate extends Transform {
  size = 0;
  format: AudioFormat | null = null;
  private head: Buffer[] = [];
  private headBytes = 0;
  private judged = false;

  constructor(
    private readonly declaredType: string,
    private readonly declaredLength: number | null,
  ) {
    super();
  }

  private judge(): Error | null {
    this.judged = true;
    const head = Buffer.concat(this.head);
    this.head = [];
    this.format = sniffAudio(head);
    if (!this.format) return new Refusal(audioInvalidTypeMessage(this.declaredType));
    if (head.length > 0) this.push(head);
    return null;
  }

  override _transform(
    chunk: Buffer,
    _enc: BufferEncoding,
    done: (err?: Error | null, data?: Buffer) => void,
  ) {
    this.size += chunk.length;
    if (this.size > AUDIO_MAX_BYTES) {
      return done(new Refusal(audioTooLargeMessage(Math.max(this.size, this.declaredLength ?? 0))));
    }
    if (this.judged) return done(null, chunk);
    this.head.push(chunk);
    this.headBytes += chunk.length;
    if (this.headBytes < SNIFF_BYTES) return done();
    done(this.judge());
  }

  override _flush(done: (err?: Error | null) => void) {
    done(this.judged ? null : this.judge());
  }
}

/** The browser's type for a file it could not type is `application/octet-stream`: 'unknown'. */
const declaredTypeOf = (mimetype: string | undefined): string =>
  !mimetype || mimetype === 'application/octet-stream' ? '' : mimetype;

function checkForm(fields: Record<string, string>): void {
  if (!(fields.name ?? '').trim()) throw new Refusal('Session name is required');
  if ((fields.name ?? '').length > SESSION_NAME_MAX) {
    throw new Refusal(tooLongMessage('Session name', SESSION_NAME_MAX));
  }
  const date = (fields.session_date ?? '').trim();
  if (!date) throw new Refusal('Session date is required');
  if (!Number.isFinite(Date.parse(date))) throw new Refusal('Invalid session date');
  if ((fields.summary ?? '').length > SUMMARY_MAX) {
    throw new Refusal(tooLongMessage('Session summary', SUMMARY_MAX));
  }
}

/**
 * Answers a refusal. A small unread rest of the body is read first (closing a socket that
 * still holds unread data resets it, and the client may lose the answer); a large one is not
 * worth receiving, and the connection closes after the answer.
 */
async function refuse(req: FastifyRequest, reply: FastifyReply, message: string): Promise<FastifyReply> {
  const raw = req.raw;
  const declared = Number(req.headers['content-length']);
  if (!raw.readableEnded && Number.isFinite(declared) && declared <= DRAIN_LIMIT_BYTES) {
    raw.unpipe();
    await new Promise<void>((resolve) => {
      raw.once('end', resolve);
      raw.once('close', resolve);
      raw.once('error', () => resolve());
      raw.resume();
    });
  } else if (!raw.readableEnded) {
    reply.header('connection', 'close');
  }
  return reply.code(400).send({ detail: message });
}

/**
 * POST /api/transcripts/manual-audio: a session from an uploaded recording. The file is
 * streamed into the bus blob store as it arrives (never held whole), counted against the
 * 500 MB cap and judged by its bytes; then the transcript service creates the session and
 * queues its transcription, and the answer is the session, transcription 'queued'.
 */
export default async function audioRoutes(app: FastifyInstance): Promise<void> {
  const bus = app.ctx.bus;
  await app.register(multipart, {
    limits: {
      // One byte over the cap reaches AudioGate, which refuses with the specification's message.
      fileSize: AUDIO_MAX_BYTES + 1,
      files: 1,
      fields: 10,
      fieldSize: FIELD_MAX_BYTES,
      parts: 12,
    },
    throwFileSizeLimit: true,
  });

  app.post(
    '/transcripts/manual-audio',
    { schema: { response: { 200: TranscriptListItemSchema } } },
    async (req, reply) => {
      const declared = Number(req.headers['content-length']);
      const declaredLength = Number.isFinite(declared) ? declared : null;
      if (declaredLength !== null && declaredLength > AUDIO_MAX_BYTES + FORM_OVERHEAD_BYTES) {
        return refuse(req, reply, audioTooLargeMessage(declaredLength));
      }
      if (!req.isMultipart()) return refuse(req, reply, 'Please select an audio file');
      if (!boundaryOf(req.headers['content-type'])) return refuse(req, reply, MALFORMED_FORM);

      const fields: Record<string, string> = {};
      let stored: { blob: string; size: number; format: AudioFormat; filename: string } | null = null;
      let partial: string | null = null;
      try {
        for await (const part of req.parts()) {
          if (part.type === 'field') {
            // busboy cuts a field at the limit and says so; a cut value is not what was sent.
            if (part.valueTruncated) {
              throw new Refusal(
                `The form field '${part.fieldname.slice(0, 100)}' is too long (at most 64 KB).`,
              );
            }
            if (typeof part.value === 'string') fields[part.fieldname] = part.value;
            continue;
          }
          // Fields sent before the file are checked before a byte of it is stored.
          checkForm(fields);
          const gate = new AudioGate(declaredTypeOf(part.mimetype), declaredLength);
          const source = pipeline(part.file, gate, () => {});
          partial = randomUUID();
          const info = await bus.blobs.put(AUDIO_BLOB_BUCKET, partial, source, {
            contentType: part.mimetype || 'application/octet-stream',
          });
          stored = { blob: partial, size: info.size, format: gate.format!, filename: part.filename ?? '' };
        }
        if (!stored) throw new Refusal('Please select an audio file');
        checkForm(fields);
        const item = await call(bus, createAudioTranscriptRpc, {
          owner_id: req.user!.id,
          name: fields.name,
          session_date: fields.session_date,
          ...(fields.summary !== undefined ? { summary: fields.summary } : {}),
          ...(fields.group_id ? { group_id: fields.group_id } : {}),
          blob: stored.blob,
          size: stored.size,
          format: stored.format,
          filename: stored.filename,
        });
        partial = null;
        return item;
      } catch (thrown) {
        if (partial) await bus.blobs.delete(AUDIO_BLOB_BUCKET, partial).catch(() => false);
        const err = asRefusal(thrown);
        const code = (err as { code?: string }).code;
        if (err instanceof Refusal) return refuse(req, reply, err.message);
        if (code === 'FST_REQ_FILE_TOO_LARGE') {
          return refuse(req, reply, audioTooLargeMessage(Math.max(AUDIO_MAX_BYTES + 1, declaredLength ?? 0)));
        }
        if (code === 'FST_FILES_LIMIT') return refuse(req, reply, 'Please select only one audio file');
        if (code?.startsWith('FST_')) return refuse(req, reply, (err as Error).message);
        throw err;
      }
    },
  );

  // A failed transcription tried again from the recording the session kept (see
  // Transcript.transcription_retryable); 409 when it is not failed or the recording is gone.
  app.post(
    '/transcripts/:id/retry-transcription',
    { schema: { params: IdParamsSchema, response: { 200: TranscriptListItemSchema } } },
    (req) =>
      call(bus, retryAudioTranscriptionRpc, {
        owner_id: req.user!.id,
        id: (req.params as { id: string }).id,
      }),
  );
}
