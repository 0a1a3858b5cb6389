import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError, toFile } from 'openai';
import { decodeToPcm, pcmPieces, saveStream, wavFile } from './audio-pieces.ts';
import { abortError, retryableStatus, SpeechError, type SpeechLine, type SpeechProvider } from './types.ts';

/** An OpenAI-compatible transcription server: OpenAI, or a local faster-whisper, whisper.cpp, LocalAI, vLLM. */
export interface OpenAiTranscriptionOptions {
  /** e.g. http://localhost:8000/v1 (the SDK appends /audio/transcriptions). */
  baseUrl: string;
  /** Local servers usually take none. */
  apiKey?: string;
  model: string;
  /** The server's upload limit: larger recordings are split below it. */
  maxUploadBytes: number;
  /** Limit of one request (each piece of a split recording has its own). */
  timeoutMs: number;
  /** Tries after the first of a request that may pass (429, 5xx, timeouts), honouring retry-after. */
  retries?: number;
  /** ffmpeg program, to split recordings over the limit; default `ffmpeg` on PATH. */
  ffmpeg?: string;
}

/** One segment as the server reports it, in seconds of the audio sent. */
export interface TranscribedSegment {
  start: number;
  end: number;
  text: string;
  /** A diarizing server's label ("SPEAKER_00", "A", ...), when it gives one. */
  speaker?: string;
}

export interface Transcribed {
  durationSeconds: number;
  segments: TranscribedSegment[];
}

/**
 * Calls `audio.transcriptions.create` with verbose_json and segment timestamps. Servers answer
 * with segments (OpenAI, faster-whisper, whisper.cpp), with speaker labels on them when they
 * diarize (WhisperX-style servers), or, when they know only the plain formats, with the text
 * alone: that becomes one segment over the whole audio.
 */
export class TranscriptionClient {
  readonly #client: OpenAI;

  constructor(private readonly opts: OpenAiTranscriptionOptions) {
    this.#client = new OpenAI({
      baseURL: opts.baseUrl.replace(/\/+$/, ''),
      // The SDK insists on a key; a local server ignores the header.
      apiKey: opts.apiKey ?? 'none',
      timeout: opts.timeoutMs,
      maxRetries: opts.retries ?? 2,
    });
  }

  async transcribe(
    file: { data: Buffer; name: string; type: string },
    extra: { prompt?: string; language?: string; signal?: AbortSignal } = {},
  ): Promise<Transcribed> {
    // A request signal of its own, tied to the caller's for this request only: the SDK leaves
    // its listener on the signal it is given, and the caller's lives as long as the worker.
    const own = new AbortController();
    const outer = extra.signal;
    const cancel = () => own.abort(outer?.reason);
    if (outer?.aborted) cancel();
    else outer?.addEventListener('abort', cancel, { once: true });
    try {
      const body: unknown = await this.#client.audio.transcriptions.create(
        {
          file: await toFile(file.data, file.name, { type: file.type }),
          model: this.opts.model,
          response_format: 'verbose_json',
          timestamp_granularities: ['segment'],
          ...(extra.prompt ? { prompt: extra.prompt } : {}),
          ...(extra.language ? { language: extra.language } : {}),
        },
        { signal: own.signal },
      );
      return parseTranscription(body);
    } catch (err) {
      if (outer?.aborted) throw abortError(outer);
      throw transcriptionError(err, file.data.length);
    } finally {
      outer?.removeEventListener('abort', cancel);
    }
  }
}

/** The server's answer as segments, whichever of json, text and verbose_json it chose to send. */
export function parseTranscription(body: unknown): Transcribed {
  if (typeof body === 'string') {
    const text = body.trim();
    return { durationSeconds: 0, segments: text ? [{ start: 0, end: 0, text }] : [] };
  }
  if (!body || typeof body !== 'object') {
    throw new SpeechError('The transcription server answered without a transcript', true);
  }
  const b = body as { text?: unknown; duration?: unknown; segments?: unknown };
  const segments: TranscribedSegment[] = [];
  if (Array.isArray(b.segments)) {
    for (const raw of b.segments as Record<string, unknown>[]) {
      const text = typeof raw?.text === 'string' ? raw.text.trim() : '';
      if (!text) continue;
      const start = Math.max(0, Number(raw.start) || 0);
      const speaker = raw.speaker;
      segments.push({
        start,
        end: Math.max(start, Number(raw.end) || start),
        text,
        ...(typeof speaker === 'string' || typeof speaker === 'number' ? { speaker: String(speaker) } : {}),
      });
    }
  }
  if (segments.length === 0 && typeof b.text === 'string' && b.text.trim()) {
    segments.push({ start: 0, end: 0, text: b.text.trim() });
  }
  const duration = Number(b.duration);
  return {
    durationSeconds: Number.isFinite(duration) && duration > 0 ? duration : (segments.at(-1)?.end ?? 0),
    segments,
  };
}

const mb = (bytes: number): string => `${(bytes / 1_000_000).toFixed(1)} MB`;

/** The SDK's errors as SpeechErrors whose message says what the server said. */
function transcriptionError(err: unknown, sentBytes: number): SpeechError {
  if (err instanceof SpeechError) return err;
  if (err instanceof APIConnectionTimeoutError) {
    return new SpeechError('The transcription server did not answer in time', true);
  }
  if (err instanceof APIUserAbortError) return new SpeechError('Transcription was cancelled', true);
  if (err instanceof APIError) {
    const status = err.status;
    if (status === undefined) {
      const cause = (err as { cause?: unknown }).cause;
      const detail = cause instanceof Error ? cause.message : err.message;
      return new SpeechError(`The transcription server could not be reached: ${detail}`, true);
    }
    const body = err.error as { message?: unknown; detail?: unknown } | undefined;
    const detail =
      (typeof body?.message === 'string' && body.message) ||
      (typeof body?.detail === 'string' && body.detail) ||
      err.message.replace(/^\d{3}\s*/, '') ||
      'no details';
    if (status === 413) {
      return new SpeechError(
        `The transcription server refused ${mb(sentBytes)} of audio as too large (413): ${detail}. Set TRANSCRIPTION_MAX_UPLOAD_BYTES below its limit`,
        false,
        413,
      );
    }
    return new SpeechError(
      `The transcription server answered ${status}: ${detail}`,
      retryableStatus(status),
      status,
    );
  }
  return new SpeechError(
    `The transcription server could not be reached: ${(err as Error)?.message ?? String(err)}`,
    true,
  );
}

const EXTENSION: Record<string, string> = {
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'audio/wav': 'wav',
  'audio/ogg': 'ogg',
  'audio/webm': 'webm',
  'audio/flac': 'flac',
};

async function readAll(audio: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of audio) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += b.length;
    if (size > limit) throw new SpeechError('the recording is larger than it was said to be', false);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/** Speaker labels, in order of first appearance across the whole recording, as 1, 2, 3... */
class SpeakerNumbers {
  readonly #numbers = new Map<string, number>();
  of(label: string | undefined): number {
    if (label === undefined) return 1;
    let n = this.#numbers.get(label);
    if (n === undefined) {
      n = this.#numbers.size + 1;
      this.#numbers.set(label, n);
    }
    return n;
  }
}

/**
 * Uploads through an OpenAI-compatible transcription server. A recording within the server's
 * upload limit is sent as it is; a larger one is decoded with ffmpeg to 16 kHz mono, cut at
 * its quietest moments into WAV pieces below the limit, sent piece by piece, and the lines
 * stitched with each piece's offset. One line per segment, with the server's start time.
 */
export function openAiProvider(opts: OpenAiTranscriptionOptions): SpeechProvider {
  const client = new TranscriptionClient(opts);
  return {
    name: 'openai',
    async transcribe(req) {
      if (req.signal?.aborted) throw abortError(req.signal);
      const speakers = new SpeakerNumbers();
      const lines: SpeechLine[] = [];
      const add = (t: Transcribed, offset: number) => {
        for (const s of t.segments) {
          lines.push({
            seconds: offset + s.start,
            ...(s.end > s.start ? { end: offset + s.end } : {}),
            speaker: speakers.of(s.speaker),
            text: s.text,
          });
        }
      };
      const extra = {
        ...(req.prompt ? { prompt: req.prompt } : {}),
        ...(req.signal ? { signal: req.signal } : {}),
      };
      if (req.size <= opts.maxUploadBytes) {
        const audio = await req.openAudio();
        let data: Buffer;
        try {
          data = await readAll(audio, opts.maxUploadBytes);
        } finally {
          audio.destroy();
        }
        const type = req.contentType ?? 'application/octet-stream';
        const result = await client.transcribe(
          { data, name: `recording.${EXTENSION[type] ?? 'bin'}`, type },
          extra,
        );
        add(result, 0);
        return { durationSeconds: result.durationSeconds, lines };
      }
      const dir = await mkdtemp(path.join(os.tmpdir(), 'chronicler-speech-'));
      try {
        const input = path.join(dir, 'recording');
        const pcm = path.join(dir, 'recording.pcm');
        const audio = await req.openAudio();
        try {
          await saveStream(audio, input, req.signal);
        } catch (err) {
          if (req.signal?.aborted) throw abortError(req.signal);
          throw err;
        } finally {
          audio.destroy();
        }
        await decodeToPcm(input, pcm, {
          ...(opts.ffmpeg ? { ffmpeg: opts.ffmpeg } : {}),
          ...(req.signal ? { signal: req.signal } : {}),
        }).catch((err: unknown) => {
          if (req.signal?.aborted) throw abortError(req.signal);
          throw err;
        });
        await rm(input, { force: true });
        let durationSeconds = 0;
        let index = 0;
        for await (const piece of pcmPieces(pcm, opts.maxUploadBytes)) {
          const result = await client.transcribe(
            { data: wavFile(piece.pcm), name: `piece-${++index}.wav`, type: 'audio/wav' },
            extra,
          );
          add(result, piece.offsetSeconds);
          durationSeconds = piece.offsetSeconds + piece.pcm.length / 32_000;
        }
        return { durationSeconds, lines };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
