import { DeepgramClient } from '@deepgram/sdk';
import {
  DEFAULT_LIVE_TUNING,
  type ConnectionSink,
  type LiveConnection,
  type LiveTuning,
} from './live-connection.ts';
import { openResilientStream } from './resilient.ts';
import { StreamingError, type StreamingOptions, type StreamingProvider } from './types.ts';

export interface DeepgramLiveOptions {
  apiKey: string;
  /**
   * Base URL override, shared with the pre-recorded API: the SDK opens the socket at
   * `<baseUrl>/v1/listen` (http(s) URLs become ws(s)). Default Deepgram's production API.
   */
  baseUrl?: string;
  model: string;
  /** Silence (ms) after which Deepgram marks speech_final. */
  endpointingMs?: number;
  /** Gap between words (ms) after which Deepgram sends UtteranceEnd. */
  utteranceEndMs?: number;
  connectTimeoutMs?: number;
  tuning?: Partial<LiveTuning>;
}

interface DeepgramWord {
  start?: number;
  end?: number;
}
interface DeepgramMessage {
  type?: string;
  start?: number;
  duration?: number;
  is_final?: boolean;
  channel?: { alternatives?: { transcript?: string; confidence?: number; words?: DeepgramWord[] }[] };
}

/**
 * Deepgram live transcription (WebSocket `/v1/listen`) through the SDK. The SDK's own
 * reconnects are off: a new socket must be fed the audio no final covered yet, which only
 * the stream knows (see resilient.ts).
 */
export function deepgramLiveProvider(opts: DeepgramLiveOptions): StreamingProvider {
  const client = new DeepgramClient({
    apiKey: opts.apiKey,
    ...(opts.baseUrl ? { baseUrl: opts.baseUrl.replace(/\/+$/, '') } : {}),
  });
  const tuning = { ...DEFAULT_LIVE_TUNING, ...opts.tuning };
  return {
    name: 'deepgram',
    open: (options, events) =>
      openResilientStream({
        provider: 'deepgram',
        displayName: 'Deepgram',
        tuning,
        options,
        events,
        connect: (sink) => connectDeepgram(client, opts, options, sink),
      }),
  };
}

async function connectDeepgram(
  client: DeepgramClient,
  opts: DeepgramLiveOptions,
  options: StreamingOptions,
  sink: ConnectionSink,
): Promise<LiveConnection> {
  const keyterms = (options.keyterms ?? []).map((k) => k.trim()).filter(Boolean);
  // Nova-3 takes keyterm prompting; older models only the legacy keywords.
  const nova3 = opts.model === 'nova-3' || opts.model.startsWith('nova-3-');
  const socket = await client.listen.v1.connect({
    model: opts.model,
    encoding: 'linear16',
    sample_rate: options.sampleRate ?? 16_000,
    channels: 1,
    interim_results: 'true',
    endpointing: opts.endpointingMs ?? 300,
    utterance_end_ms: opts.utteranceEndMs ?? 1_000,
    punctuate: 'true',
    smart_format: 'true',
    ...(keyterms.length > 0 ? (nova3 ? { keyterm: keyterms } : { keywords: keyterms }) : {}),
    ...(options.language ? { language: options.language } : {}),
    reconnectAttempts: 0,
    shouldReconnect: () => false,
    connectionTimeoutInSeconds: (opts.connectTimeoutMs ?? 10_000) / 1000,
  });

  let segment = 0;
  let opened = false;
  let closing: 'finish' | 'abort' | null = null;
  let lastError: Error | null = null;
  let closed = false;
  let resolveFinish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (resolveFinish = resolve));

  return new Promise<LiveConnection>((resolve, reject) => {
    const connection: LiveConnection = {
      send(pcm) {
        try {
          socket.sendMedia(pcm);
        } catch {
          // Not open any more: the close event follows and the stream sends this audio again.
        }
      },
      flush() {
        trySend(() => socket.sendFinalize({ type: 'Finalize' }));
      },
      keepAlive() {
        trySend(() => socket.sendKeepAlive({ type: 'KeepAlive' }));
      },
      finish() {
        if (closed) return Promise.resolve();
        closing = 'finish';
        // Finalize first so the last words come back as a final before the Metadata and close.
        trySend(() => socket.sendFinalize({ type: 'Finalize' }));
        trySend(() => socket.sendCloseStream({ type: 'CloseStream' }));
        return finished;
      },
      abort() {
        if (closed) return;
        closing = 'abort';
        closed = true;
        socket.close();
        resolveFinish();
      },
    };

    socket.on('open', () => {
      opened = true;
      resolve(connection);
    });
    socket.on('message', (message) => {
      const m = message as DeepgramMessage;
      if (m.type !== 'Results') return;
      const alt = m.channel?.alternatives?.[0];
      const words = alt?.words ?? [];
      const start = m.start ?? 0;
      const end = start + (m.duration ?? 0);
      sink.result({
        key: segment,
        text: alt?.transcript ?? '',
        isFinal: m.is_final === true,
        start: words[0]?.start ?? start,
        end: words.at(-1)?.end ?? end,
        ...(typeof alt?.confidence === 'number' ? { confidence: alt.confidence } : {}),
        // A final accounts for its whole window, silence included.
        ...(m.is_final ? { coveredUntil: end } : {}),
      });
      if (m.is_final) segment++;
    });
    socket.on('error', (err) => {
      lastError = err;
    });
    socket.on('close', (event) => {
      // The SDK reports a refused handshake as a close followed, in the same tick, by the
      // error that carries the HTTP status: decide once both have arrived.
      queueMicrotask(() => {
        const wasClosed = closed;
        closed = true;
        if (!opened) {
          reject(handshakeError(lastError));
          return;
        }
        if (closing === 'abort' || wasClosed || (closing === 'finish' && event.code === 1000)) {
          resolveFinish();
          return;
        }
        // Dropped, even while finishing: the stream reconnects, sends the audio again and finishes anew.
        sink.lost(closeError(event.code, event.reason, lastError));
      });
    });
    socket.connect();

    function trySend(send: () => void): void {
      try {
        send();
      } catch {
        // Not open: the close event decides what happens next.
      }
    }
  });
}

/** The SDK (ws) reports a refused upgrade as "Unexpected server response: <status>". */
function handshakeError(err: Error | null): StreamingError {
  const message = err?.message ?? 'the connection closed before it opened';
  const status = Number(/Unexpected server response: (\d{3})/.exec(message)?.[1]) || undefined;
  if (status === 401 || status === 403)
    return new StreamingError('Deepgram refused the API key', false, status);
  if (status === 402)
    return new StreamingError('Deepgram refused the stream: the account has no credit left', false, 402);
  if (status === 429)
    return new StreamingError('Deepgram is at its limit of concurrent streams (429)', true, 429);
  if (status !== undefined && status >= 400 && status < 500) {
    return new StreamingError(`Deepgram refused the stream settings (${status})`, false, status);
  }
  if (status !== undefined) return new StreamingError(`Deepgram answered ${status}`, true, status);
  if (message === 'TIMEOUT') return new StreamingError('Deepgram did not answer in time', true);
  return new StreamingError(`Deepgram could not be reached: ${message}`, true);
}

/**
 * Deepgram closes with 1011 for NET-0001 (no audio for 10 s) and server trouble, 1008 for
 * audio it cannot decode (DATA-0000): that one would only repeat.
 */
function closeError(code: number, reason: string | undefined, err: Error | null): StreamingError {
  const detail = reason || err?.message || `code ${code}`;
  if (code === 1008) return new StreamingError(`Deepgram could not decode the audio: ${detail}`, false, code);
  return new StreamingError(`Deepgram closed the stream (${code}): ${detail}`, true, code);
}
