import { DeepgramClient, DeepgramError, DeepgramTimeoutError } from '@deepgram/sdk';
import { abortError, retryableStatus, SpeechError, type SpeechLine, type SpeechProvider } from './types.ts';

export interface DeepgramOptions {
  apiKey: string;
  /** Base URL override; default Deepgram's production API. */
  baseUrl?: string;
  model: string;
  timeoutMs: number;
}

/** Deepgram pre-recorded transcription (POST /v1/listen) with diarization. */
export function deepgramProvider(opts: DeepgramOptions): SpeechProvider {
  const client = new DeepgramClient({
    apiKey: opts.apiKey,
    ...(opts.baseUrl ? { baseUrl: opts.baseUrl.replace(/\/+$/, '') } : {}),
  });
  return {
    name: 'deepgram',
    async transcribe(req) {
      if (req.signal?.aborted) throw abortError(req.signal);
      const audio = await req.openAudio();
      // Our own deadline rather than the SDK's, so a timeout is told apart from other failures.
      const timeout = AbortSignal.timeout(opts.timeoutMs);
      const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
      try {
        const response = await client.listen.v1.media.transcribeFile(
          {
            data: audio,
            contentLength: req.size,
            ...(req.contentType ? { contentType: req.contentType } : {}),
          },
          { model: opts.model, diarize: true, utterances: true, punctuate: true, smart_format: true },
          {
            timeoutInSeconds: opts.timeoutMs / 1000 + 60,
            // The body is a stream that cannot be sent twice; the job queue retries instead.
            maxRetries: 0,
            abortSignal: signal,
          },
        );
        return toResult(response as unknown as DeepgramResponse);
      } catch (err) {
        if (req.signal?.aborted) throw abortError(req.signal);
        if (timeout.aborted) throw new SpeechError('Deepgram did not answer in time', true);
        throw deepgramError(err);
      } finally {
        audio.destroy();
      }
    },
  };
}

interface DeepgramWord {
  word?: string;
  punctuated_word?: string;
  start?: number;
  end?: number;
  speaker?: number;
}
interface DeepgramResponse {
  metadata?: { duration?: number };
  results?: {
    utterances?: { start?: number; end?: number; speaker?: number; transcript?: string }[];
    channels?: { alternatives?: { transcript?: string; words?: DeepgramWord[] }[] }[];
  };
}

function toResult(body: DeepgramResponse): { durationSeconds: number; lines: SpeechLine[] } {
  if (!body || typeof body !== 'object' || !body.results) {
    throw new SpeechError('Deepgram: the response has no transcript', true);
  }
  const durationSeconds = Number(body.metadata?.duration ?? 0) || 0;
  const utterances = body.results.utterances;
  let lines: SpeechLine[];
  if (utterances && utterances.length > 0) {
    lines = utterances.map((u) => ({
      seconds: u.start ?? 0,
      ...(u.end !== undefined && u.end > (u.start ?? 0) ? { end: u.end } : {}),
      speaker: (u.speaker ?? 0) + 1,
      text: (u.transcript ?? '').trim(),
    }));
  } else {
    // Without utterances, consecutive words of one speaker make a line.
    lines = [];
    const words = body.results.channels?.[0]?.alternatives?.[0]?.words ?? [];
    for (const w of words) {
      const speaker = (w.speaker ?? 0) + 1;
      const text = w.punctuated_word ?? w.word ?? '';
      const last = lines.at(-1);
      const end = w.end !== undefined && w.end > (w.start ?? 0) ? { end: w.end } : {};
      if (last && last.speaker === speaker) Object.assign(last, { text: `${last.text} ${text}` }, end);
      else lines.push({ seconds: w.start ?? 0, ...end, speaker, text });
    }
  }
  return { durationSeconds, lines: lines.filter((l) => l.text.length > 0) };
}

/** Deepgram's error bodies: `{err_code, err_msg}` (v1) or `{category, message}`. */
function bodyMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() || undefined;
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  for (const key of ['err_msg', 'message', 'error', 'reason']) {
    if (typeof b[key] === 'string' && b[key]) return b[key];
  }
  return undefined;
}

function deepgramError(err: unknown): SpeechError {
  if (err instanceof SpeechError) return err;
  if (err instanceof DeepgramTimeoutError) {
    return new SpeechError('Deepgram did not answer in time', true);
  }
  if (err instanceof DeepgramError) {
    const status = err.statusCode;
    const detail = bodyMessage(err.body) ?? err.message;
    return new SpeechError(
      status ? `Deepgram answered ${status}: ${detail}` : `Deepgram could not be reached: ${detail}`,
      retryableStatus(status),
      status,
    );
  }
  return new SpeechError(`Deepgram could not be reached: ${(err as Error)?.message ?? String(err)}`, true);
}
