import { speechErrors, speechStreamsOpen } from '@chronicler/kit';
import { quietestCut, rms, wavFile } from '../audio-pieces.ts';
import { TranscriptionClient, type OpenAiTranscriptionOptions } from '../openai.ts';
import { SpeechError } from '../types.ts';
import {
  StreamingError,
  type SpeechStream,
  type StreamingEvents,
  type StreamingOptions,
  type StreamingProvider,
} from './types.ts';

export interface OpenAiLiveOptions extends Omit<OpenAiTranscriptionOptions, 'maxUploadBytes'> {
  /** Requests this process sends at once, over all speakers of all sessions. */
  concurrency: number;
  /** An utterance longer than this (nobody paused) is cut at its quietest moment near the end. Default 30 s. */
  maxUtteranceSeconds?: number;
}

/** At most `limit` tasks at once, the rest in order of arrival. */
class Limiter {
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#running++;
    try {
      return await task();
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }
}

/** Below this level (16-bit RMS) an utterance is digital silence: Whisper would only invent words for it. */
const SILENT_RMS = 30;

/**
 * A "stream" of one speaker over a transcription server that only takes whole files: the
 * audio of each utterance is held until the bot says the speaker paused (flush), then sent as
 * a WAV; the answer comes back as that utterance's one final (no interims). Utterances of a
 * speaker are transcribed one after the other so their finals keep their order; the provider's
 * limiter bounds requests across speakers. A request that may pass (429, 5xx, timeout) is
 * tried again by the SDK with backoff and retry-after; one that still fails, or is refused
 * (401, 413), ends the stream with an error fit to show, as a provider that stays down does.
 */
class UtteranceStream implements SpeechStream {
  readonly provider = 'openai' as const;
  readonly #bytesPerSecond: number;
  readonly #maxBytes: number;
  #parts: Buffer[] = [];
  #partBytes = 0;
  /** Byte position of the held utterance's first byte in the stream's audio. */
  #partStart = 0;
  #written = 0;
  #nextId = 1;
  #queue: Promise<void> = Promise.resolve();
  #closed = false;
  #finishing: Promise<void> | null = null;
  readonly #abort = new AbortController();

  constructor(
    private readonly client: TranscriptionClient,
    private readonly limiter: Limiter,
    private readonly options: StreamingOptions,
    private readonly events: StreamingEvents,
    maxUtteranceSeconds: number,
  ) {
    this.#bytesPerSecond = (options.sampleRate ?? 16_000) * 2;
    this.#maxBytes = Math.floor(maxUtteranceSeconds * this.#bytesPerSecond) & ~1;
    speechErrors.inc({ provider: 'openai' }, 0);
    speechStreamsOpen.inc({ provider: 'openai' });
  }

  write(pcm: Buffer): void {
    if (this.#closed || this.#finishing || pcm.length === 0) return;
    this.#parts.push(pcm);
    this.#partBytes += pcm.length;
    this.#written += pcm.length;
    if (this.#partBytes < this.#maxBytes) return;
    // Nobody paused for a long while: cut at the quietest moment of the last 5 seconds.
    const all = Buffer.concat(this.#parts);
    const window = Math.min(all.length, 5 * this.#bytesPerSecond) & ~1;
    const cut = all.length - window + quietestCut(all.subarray(all.length - window));
    this.#send(all.subarray(0, cut), this.#partStart);
    this.#parts = cut < all.length ? [all.subarray(cut)] : [];
    this.#partBytes = all.length - cut;
    this.#partStart += cut;
  }

  flush(): void {
    if (this.#closed || this.#partBytes === 0) return;
    const pcm = Buffer.concat(this.#parts);
    this.#send(pcm, this.#partStart);
    this.#parts = [];
    this.#partBytes = 0;
    this.#partStart = this.#written;
  }

  finish(): Promise<void> {
    this.#finishing ??= (async () => {
      this.flush();
      await this.#queue;
      this.#close({});
    })();
    return this.#finishing;
  }

  abort(): void {
    this.#abort.abort(new Error('The live session ended'));
    this.#close({});
  }

  #send(pcm: Buffer, startByte: number): void {
    if (pcm.length < this.#bytesPerSecond / 10 || rms(pcm) < SILENT_RMS) return;
    const id = String(this.#nextId++);
    const startSeconds = startByte / this.#bytesPerSecond;
    const seconds = pcm.length / this.#bytesPerSecond;
    const file = {
      data: wavFile(pcm, this.#bytesPerSecond / 2),
      name: `utterance-${id}.wav`,
      type: 'audio/wav',
    };
    this.#queue = this.#queue.then(async () => {
      if (this.#closed) return;
      try {
        const result = await this.limiter.run(() =>
          this.client.transcribe(file, {
            ...(this.options.keyterms?.length ? { prompt: this.options.keyterms.join(', ') } : {}),
            ...(this.options.language ? { language: this.options.language } : {}),
            signal: this.#abort.signal,
          }),
        );
        if (this.#closed) return;
        const text = result.segments
          .map((s) => s.text)
          .join(' ')
          .trim();
        // The server's times within the utterance, when it gives them; else the utterance's own.
        const from = Math.min(result.segments[0]?.start ?? 0, seconds);
        const to = Math.min(Math.max(from, result.segments.at(-1)?.end || seconds), seconds);
        this.events.onUtterance({
          utteranceId: id,
          text,
          isFinal: true,
          startSeconds: startSeconds + from,
          endSeconds: startSeconds + to,
        });
      } catch (err) {
        if (this.#closed) return;
        speechErrors.inc({ provider: 'openai' });
        const speech = err instanceof SpeechError ? err : null;
        const message = speech?.message ?? `The transcription server failed: ${(err as Error)?.message}`;
        this.#close({ error: new StreamingError(message, speech?.retryable ?? true, speech?.status) });
      }
    });
  }

  #close(info: { error?: StreamingError }): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#parts = [];
    this.#partBytes = 0;
    speechStreamsOpen.dec({ provider: 'openai' });
    this.events.onClose(info);
  }
}

/**
 * Live transcription through an OpenAI-compatible transcription server, which has no streaming
 * API: each utterance the bot cuts at a speaker's pause is transcribed as it ends.
 */
export function openAiLiveProvider(opts: OpenAiLiveOptions): StreamingProvider {
  const client = new TranscriptionClient({ ...opts, maxUploadBytes: Number.MAX_SAFE_INTEGER });
  const limiter = new Limiter(opts.concurrency);
  return {
    name: 'openai',
    open(options, events) {
      return Promise.resolve(
        new UtteranceStream(client, limiter, options, events, opts.maxUtteranceSeconds ?? 30),
      );
    },
  };
}
