import { AssemblyAI, type StreamingTranscriber, type TurnEvent } from 'assemblyai';
import {
  DEFAULT_LIVE_TUNING,
  type ConnectionSink,
  type LiveConnection,
  type LiveTuning,
} from './live-connection.ts';
import { openResilientStream } from './resilient.ts';
import { StreamingError, type StreamingOptions, type StreamingProvider } from './types.ts';

export interface AssemblyAiLiveOptions {
  apiKey: string;
  /** Streaming endpoint override (the SDK accepts wss:// only); default wss://streaming.assemblyai.com/v3/ws. */
  websocketBaseUrl?: string;
  connectTimeoutMs?: number;
  tuning?: Partial<LiveTuning>;
}

/**
 * AssemblyAI accepts audio messages of 50 to 1000 ms only (close 3007 otherwise), while
 * Discord delivers 20 ms frames: audio is sent in pieces of at least TARGET_MS.
 */
const MIN_CHUNK_MS = 50;
const TARGET_CHUNK_MS = 100;
const MAX_CHUNK_MS = 1_000;

/**
 * AssemblyAI Universal-Streaming (v3) through the SDK's streaming transcriber. Partial turns
 * become interims; the formatted end of a turn becomes the final; turn_order names the
 * utterance. The SDK's connection retries are off: the stream reconnects and re-sends the
 * audio no final covered yet (see resilient.ts). No KeepAlive: without inactivity_timeout
 * AssemblyAI keeps a silent session open (and bills it, which the stream gate bounds).
 */
export function assemblyAiLiveProvider(opts: AssemblyAiLiveOptions): StreamingProvider {
  const client = new AssemblyAI({ apiKey: opts.apiKey });
  const tuning = { ...DEFAULT_LIVE_TUNING, keepAliveMs: null, ...opts.tuning };
  return {
    name: 'assemblyai',
    open: (options, events) =>
      openResilientStream({
        provider: 'assemblyai',
        displayName: 'AssemblyAI',
        tuning,
        options,
        events,
        connect: (sink) => connectAssemblyAi(client, opts, options, tuning, sink),
      }),
  };
}

async function connectAssemblyAi(
  client: AssemblyAI,
  opts: AssemblyAiLiveOptions,
  options: StreamingOptions,
  tuning: LiveTuning,
  sink: ConnectionSink,
): Promise<LiveConnection> {
  const sampleRate = options.sampleRate ?? 16_000;
  const keyterms = (options.keyterms ?? []).map((k) => k.trim()).filter(Boolean);
  const english = !options.language || /^en\b/i.test(options.language);
  const transcriber: StreamingTranscriber = client.streaming.transcriber({
    apiKey: opts.apiKey,
    ...(opts.websocketBaseUrl ? { websocketBaseUrl: opts.websocketBaseUrl } : {}),
    sampleRate,
    encoding: 'pcm_s16le',
    formatTurns: true,
    ...(keyterms.length > 0 ? { keytermsPrompt: keyterms } : {}),
    ...(english ? {} : { speechModel: 'universal-streaming-multilingual' as const, languageDetection: true }),
    maxConnectionRetries: 0,
    connectTimeout: opts.connectTimeoutMs ?? 10_000,
  });

  const bytesPerMs = (sampleRate * 2) / 1000;
  const minBytes = Math.ceil((MIN_CHUNK_MS * bytesPerMs) / 2) * 2;
  const targetBytes = Math.ceil((TARGET_CHUNK_MS * bytesPerMs) / 2) * 2;
  const maxBytes = Math.floor((MAX_CHUNK_MS * bytesPerMs) / 2) * 2;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let closing = false;
  let lastError: Error | null = null;

  const sendRaw = (pcm: Buffer): void => {
    try {
      // The SDK sends ArrayBuffers; a copy of exactly these bytes (a Buffer may view a larger pool).
      transcriber.sendAudio(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length));
    } catch {
      // Not open: the close event follows and the stream sends this audio again.
    }
  };
  /** Sends what is pending in pieces of target..max size; with `all`, the rest too (at least min). */
  const drain = (all: boolean): void => {
    if (pendingBytes === 0) return;
    let buf = Buffer.concat(pending, pendingBytes);
    while (buf.length >= targetBytes || (all && buf.length > 0)) {
      let piece = buf.subarray(0, Math.min(buf.length, maxBytes));
      // A piece shorter than 50 ms would be refused; only the very last one can be, and it is
      // padded with silence (nothing follows it, so no offset shifts).
      if (piece.length < minBytes) piece = Buffer.concat([piece, Buffer.alloc(minBytes - piece.length)]);
      sendRaw(piece);
      buf = buf.subarray(Math.min(buf.length, maxBytes));
    }
    pending = buf.length > 0 ? [buf] : [];
    pendingBytes = buf.length;
  };

  transcriber.on('turn', (turn: TurnEvent) => {
    const words = turn.words ?? [];
    const start = (words[0]?.start ?? 0) / 1000;
    const end = (words.at(-1)?.end ?? words[0]?.start ?? 0) / 1000;
    // With format_turns the end of a turn comes twice: unformatted, then formatted (the final).
    const isFinal = turn.end_of_turn && turn.turn_is_formatted;
    sink.result({
      key: turn.turn_order,
      text: turn.transcript ?? '',
      isFinal,
      start,
      end,
      ...(isFinal && words.length > 0 ? { confidence: average(words.map((w) => w.confidence)) } : {}),
      ...(isFinal ? { coveredUntil: end } : {}),
    });
  });
  transcriber.on('error', (err: Error) => {
    lastError = err;
  });
  transcriber.on('close', (code: number, reason: string) => {
    if (closing) return;
    closing = true;
    // The Error frame before the close says more than the close reason ("See Error message for details").
    sink.lost(closeError(code, lastError?.message || reason || ''));
  });

  try {
    await transcriber.connect();
  } catch (err) {
    throw connectError(err);
  }

  return {
    send(pcm) {
      pending.push(pcm);
      pendingBytes += pcm.length;
      if (pendingBytes >= targetBytes) drain(false);
    },
    flush() {
      // Under 50 ms stays for the next piece: padding it now would shift later offsets.
      if (pendingBytes >= minBytes) drain(true);
      try {
        transcriber.forceEndpoint();
      } catch {
        // Not open: the stream reconnects and asks again.
      }
    },
    keepAlive() {
      try {
        transcriber.keepAlive();
      } catch {
        // Not open: nothing to keep alive.
      }
    },
    async finish() {
      drain(true);
      try {
        transcriber.forceEndpoint();
      } catch {
        // Not open: close() below resolves at once.
      }
      closing = true;
      // Terminate, then wait for the server's last turns and its Termination message.
      await transcriber.close(true, tuning.finishTimeoutMs);
    },
    abort() {
      closing = true;
      void transcriber.close(false).catch(() => {});
    },
  };
}

interface SdkStreamingError extends Error {
  code?: number;
  retryable?: boolean;
}

/**
 * Close codes from AssemblyAI's documentation: 1008 unauthorized (a bad key, or "Too many
 * concurrent sessions"), 3009 concurrency limit, 3005 server error, 3008 session expired,
 * 3006/3007 a malformed message or audio (ours: it would only repeat). The 40xx codes are
 * the SDK's own names for the same refusals.
 */
function closeError(code: number | undefined, detail: string): StreamingError {
  const text = detail || `code ${code ?? 'unknown'}`;
  const concurrency = /concurren|too many/i.test(text);
  if (code === 3009 || code === 4029 || code === 4102 || ((code === 1008 || code === 4001) && concurrency)) {
    return new StreamingError(`AssemblyAI is at its limit of sessions: ${text}`, true, code);
  }
  if (code === 1008 || code === 4001)
    return new StreamingError('AssemblyAI refused the API key', false, code);
  if (code === 4002 || code === 4003) {
    return new StreamingError(`AssemblyAI refused the stream: ${text}`, false, code);
  }
  if (code === 3006 || code === 4000 || code === 4101) {
    return new StreamingError(`AssemblyAI refused the stream settings: ${text}`, false, code);
  }
  return new StreamingError(`AssemblyAI closed the stream (${code ?? 'no code'}): ${text}`, true, code);
}

function connectError(err: unknown): StreamingError {
  const e = err as SdkStreamingError;
  if (typeof e?.code === 'number') return closeError(e.code, e.message);
  const message = e instanceof Error ? e.message : String(err);
  return new StreamingError(`AssemblyAI could not be reached: ${message}`, true);
}

function average(values: number[]): number {
  const nums = values.filter((v) => Number.isFinite(v));
  return nums.length === 0 ? 0 : nums.reduce((a, b) => a + b, 0) / nums.length;
}
