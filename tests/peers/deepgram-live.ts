import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { frameFeatures, Script, type ScriptLine } from './heard-speech.ts';

/**
 * A local stand-in for Deepgram's live API (WebSocket `GET /v1/listen`), speaking its wire
 * protocol: auth by `Authorization: Token <key>` (what the SDK sends from Node) or
 * `Sec-WebSocket-Protocol: token, <key>` (browsers); the options as query parameters
 * (repeated `keyterm`); binary linear16 audio in; `Results` (interim and final, with
 * start/duration and words), `UtteranceEnd` and, after CloseStream, `Metadata` out;
 * `KeepAlive`, `Finalize`, `CloseStream` understood. It fails the way Deepgram does: 401 on a
 * bad key and 429 past its concurrent streams at the handshake, close 1011 (NET-0001) when
 * neither audio nor KeepAlive came for the idle timeout, and sockets killed on demand.
 *
 * It cannot recognise speech, so it recognises a script (see heard-speech.ts): each voiced
 * segment of the PCM it receives (RMS energy above a threshold, ended by silence, Finalize or
 * CloseStream) is matched against the audio of the scripted lines, and answered with the words
 * of the line whose audio it actually received. While a segment is voiced it sends interims with
 * the words heard so far (less the one still being said); at its end the final.
 */

/** Splits received PCM into voiced segments; times are seconds of the audio received on one socket. */
export interface SegmenterOptions {
  sampleRate: number;
  /** RMS (of 16-bit samples) above which a 20 ms frame is voiced. */
  threshold: number;
  /** Silence that ends a segment. */
  silenceMs: number;
  /** Voiced audio between interims (each shows one more word). */
  interimEveryMs: number;
}

export interface OpenSegment {
  /** A bare scripted line, handed to the segment at its onset (scripts without audio). */
  text: string | null;
  /** Seconds of this socket's audio. */
  start: number;
  lastVoiced: number;
  /** Words shown in the last interim. */
  shown: number;
  voicedMs: number;
  /** Features of its 20 ms frames from its onset (see heard-speech.ts), up to now. */
  frames: number[][];
  /** Frames up to and including the last voiced one. */
  voicedFrames: number;
}

export interface SegmentHandlers {
  /** At a segment's onset: the text of the next bare scripted line, or null to match by audio. */
  nextText(): string | null;
  interim(segment: OpenSegment, cursor: number): void;
  final(segment: OpenSegment, cursor: number): void;
}

export class Segmenter {
  readonly #frameBytes: number;
  readonly #samples: Int16Array;
  #carry = Buffer.alloc(0);
  #frames = 0;
  open: OpenSegment | null = null;

  constructor(
    private readonly opts: SegmenterOptions,
    private readonly on: SegmentHandlers,
  ) {
    this.#frameBytes = Math.round(opts.sampleRate * 0.02) * 2;
    this.#samples = new Int16Array(this.#frameBytes / 2);
  }

  /** Seconds of audio processed so far. */
  get cursor(): number {
    return (this.#frames * this.#frameBytes) / 2 / this.opts.sampleRate;
  }

  push(pcm: Buffer): void {
    let buf = this.#carry.length > 0 ? Buffer.concat([this.#carry, pcm]) : pcm;
    while (buf.length >= this.#frameBytes) {
      this.#frame(buf.subarray(0, this.#frameBytes));
      buf = buf.subarray(this.#frameBytes);
    }
    this.#carry = Buffer.from(buf);
  }

  /** Ends the open segment now (Finalize, CloseStream, ForceEndpoint). */
  end(): void {
    if (!this.open) return;
    const segment = this.open;
    this.open = null;
    this.on.final(segment, this.cursor);
  }

  #frame(frame: Buffer): void {
    let sum = 0;
    for (let i = 0; i + 1 < frame.length; i += 2) {
      const s = frame.readInt16LE(i);
      this.#samples[i / 2] = s;
      sum += s * s;
    }
    const rms = Math.sqrt(sum / (frame.length / 2));
    const start = this.cursor;
    this.#frames++;
    const end = this.cursor;
    const voiced = rms >= this.opts.threshold;
    if (voiced && !this.open) {
      this.open = {
        text: this.on.nextText(),
        start,
        lastVoiced: end,
        shown: 0,
        voicedMs: 0,
        frames: [],
        voicedFrames: 0,
      };
    }
    const seg = this.open;
    if (!seg) return;
    // Judged as it would be at 16 kHz, whatever rate the client chose.
    seg.frames.push(frameFeatures(this.opts.sampleRate === 16_000 ? this.#samples : to16k(this.#samples)));
    if (voiced) {
      seg.lastVoiced = end;
      seg.voicedFrames = seg.frames.length;
      seg.voicedMs += 20;
      if (seg.voicedMs % this.opts.interimEveryMs === 0) this.on.interim(seg, end);
    } else if ((end - seg.lastVoiced) * 1000 >= this.opts.silenceMs) {
      this.end();
    }
  }
}

/** Nearest-sample resampling of one frame to 320 samples (16 kHz): enough for its features. */
function to16k(samples: Int16Array): Int16Array {
  const out = new Int16Array(320);
  for (let i = 0; i < 320; i++) out[i] = samples[Math.floor((i * samples.length) / 320)]!;
  return out;
}

/** A word of an answer, with its time in the socket's audio (seconds). */
export interface TimedWord {
  word: string;
  start: number;
  end: number;
}

/**
 * The words of a segment. Interims show the words heard so far but the last (still being
 * said), and never the whole of a bare line (that is the final's job); null when an interim
 * would show nothing new. A final of audio that matches no line is `unscripted segment N`; one too
 * short to tell (a blip, the last syllable of a line) is empty, as a provider's finals of noise are.
 */
export function segmentWords(script: Script, segment: OpenSegment, final: boolean): TimedWord[] | null {
  let words: TimedWord[];
  if (segment.text !== null) {
    const all = segment.text.split(/\s+/).filter(Boolean);
    const span = Math.max(segment.lastVoiced - segment.start, 0.02);
    const step = span / Math.max(all.length, 1);
    words = all.map((word, i) => ({
      word,
      start: segment.start + i * step,
      end: segment.start + (i + 1) * step,
    }));
    if (final) return words;
    segment.shown = Math.min(segment.shown + 1, Math.max(1, all.length - 1));
    return words.slice(0, segment.shown);
  } else {
    const frames = segment.frames.slice(0, segment.voicedFrames);
    const heard = script.hear(frames);
    // Long enough to tell, and like no line: audio nobody scripted, which a test should see.
    if (final && !heard && script.judgeable(frames))
      return [{ word: script.unscripted(), start: segment.start, end: segment.lastVoiced }];
    words = (heard?.words ?? []).map((w) => ({
      word: w.word,
      start: segment.start + w.start,
      end: segment.start + w.end,
    }));
    if (!final) words = words.slice(0, -1);
  }
  if (!final && words.length <= segment.shown) return null;
  segment.shown = words.length;
  return words;
}

/** Resolves when `probe` holds, re-checking on every `change` of `events`. */
export function waitForChange(
  events: EventEmitter,
  what: string,
  probe: () => boolean,
  timeoutMs = 10_000,
): Promise<void> {
  if (probe()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      events.off('change', check);
      reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    function check(): void {
      if (!probe()) return;
      clearTimeout(timer);
      events.off('change', check);
      resolve();
    }
    events.on('change', check);
  });
}

interface DeepgramLiveStream {
  id: number;
  /** The query, with repeated parameters (keyterm) joined by commas. */
  query: Record<string, string>;
  keyterms: string[];
  auth: 'header' | 'protocol';
  bytes: number;
  keepAlives: number;
  finalizes: number;
  closeStreams: number;
  /** Finals sent with text. */
  finals: string[];
  /** Set once the socket is gone: who ended it and with which code. */
  closed: { by: 'client' | 'close-stream' | 'idle' | 'drop' | 'peer'; code: number } | null;
}

export interface DeepgramLivePeer {
  readonly url: string;
  readonly apiKey: string;
  /** Concurrent streams allowed; one more is refused with 429 at the handshake. */
  maxStreams: number;
  readonly streams: DeepgramLiveStream[];
  /** Handshakes refused, by status. */
  readonly refusals: number[];
  /** Lines to recognise: with their audio, judged by what arrives; bare, in order of onset. */
  script(lines: readonly ScriptLine[]): void;
  /** Kills every open socket abruptly (no close frame: the client sees 1006). */
  dropAll(): void;
  /** Kills stream `id` abruptly (no close frame): its client reconnects. */
  drop(id: number): void;
  /** Refuses the next `count` handshakes with `status` (500: Deepgram having trouble). */
  failHandshakes(count: number, status?: number): void;
  /** Kills the next stream abruptly once it has received `afterBytes` (default: its first audio). */
  dropNext(opts?: { afterBytes?: number }): void;
  /** Resolves when `probe` holds; checked whenever the peer receives or sends something. */
  waitFor(what: string, probe: (peer: DeepgramLivePeer) => boolean, timeoutMs?: number): Promise<void>;
  openStreams(): number;
  env(): Record<string, string>;
  close(): Promise<void>;
}

export interface DeepgramLivePeerOptions {
  apiKey?: string;
  maxStreams?: number;
  /** Deepgram closes after 10 s without audio or KeepAlive; tests shorten it. */
  idleTimeoutMs?: number;
  threshold?: number;
  silenceMs?: number;
  interimEveryMs?: number;
}

const ERROR_BODIES: Record<number, { err_code: string; err_msg: string }> = {
  401: { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.' },
  429: { err_code: 'TOO_MANY_REQUESTS', err_msg: 'Too many concurrent requests. Please try again later.' },
  500: { err_code: 'INTERNAL_SERVER_ERROR', err_msg: 'Something went wrong. Please try again later.' },
};
const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

export async function startDeepgramLivePeer(opts: DeepgramLivePeerOptions = {}): Promise<DeepgramLivePeer> {
  const apiKey = opts.apiKey ?? `dg-${randomUUID()}`;
  const idleTimeoutMs = opts.idleTimeoutMs ?? 10_000;
  const changes = new EventEmitter();
  changes.setMaxListeners(100);
  const changed = (): boolean => changes.emit('change');
  const script = new Script();
  const sockets = new Map<WebSocket, DeepgramLiveStream>();
  let pendingDrop: { afterBytes: number } | null = null;
  let failing: { count: number; status: number } | null = null;
  let nextId = 1;

  const server: Server = createServer((_req, res) => {
    res.writeHead(404).end();
  });
  const wss = new WebSocketServer({
    noServer: true,
    // A browser authenticates with the subprotocols ["token", <key>]: the server picks "token".
    handleProtocols: (protocols) => (protocols.has('token') ? 'token' : false),
  });

  const peer: DeepgramLivePeer = {
    url: '',
    apiKey,
    maxStreams: opts.maxStreams ?? 50,
    streams: [],
    refusals: [],
    script: (lines) => script.set(lines),
    dropAll() {
      for (const [ws, record] of sockets) {
        record.closed = { by: 'drop', code: 1006 };
        ws.terminate();
      }
    },
    drop(id) {
      for (const [ws, record] of sockets) {
        if (record.id !== id) continue;
        record.closed = { by: 'drop', code: 1006 };
        ws.terminate();
      }
    },
    failHandshakes(count, status = 500) {
      failing = count > 0 ? { count, status } : null;
    },
    dropNext: (o = {}) => {
      pendingDrop = { afterBytes: o.afterBytes ?? 1 };
    },
    waitFor: (what, probe, timeoutMs) => waitForChange(changes, what, () => probe(peer), timeoutMs),
    openStreams: () => sockets.size,
    env: () => ({ DEEPGRAM_API_KEY: apiKey, DEEPGRAM_API_URL: peer.url }),
    async close() {
      for (const ws of sockets.keys()) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  function refuse(socket: Duplex, status: number): void {
    peer.refusals.push(status);
    const body = JSON.stringify({ ...ERROR_BODIES[status], request_id: randomUUID() });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n` +
        `Content-Type: application/json\r\ndg-error: ${ERROR_BODIES[status]!.err_msg}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    changed();
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://peer');
    if (url.pathname !== '/v1/listen') {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const protocols = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    const byHeader = req.headers.authorization === `Token ${apiKey}`;
    const byProtocol = protocols[0] === 'token' && protocols[1] === apiKey;
    if (!byHeader && !byProtocol) return refuse(socket, 401);
    if (failing) {
      const status = failing.status;
      if (--failing.count <= 0) failing = null;
      return refuse(socket, status);
    }
    if (sockets.size >= peer.maxStreams) return refuse(socket, 429);
    const query: Record<string, string> = {};
    for (const key of new Set(url.searchParams.keys())) query[key] = url.searchParams.getAll(key).join(',');
    const record: DeepgramLiveStream = {
      id: nextId++,
      query,
      keyterms: url.searchParams.getAll('keyterm'),
      auth: byHeader ? 'header' : 'protocol',
      bytes: 0,
      keepAlives: 0,
      finalizes: 0,
      closeStreams: 0,
      finals: [],
      closed: null,
    };
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, record, Number(query.sample_rate) || 16_000));
  });

  function serve(ws: WebSocket, record: DeepgramLiveStream, sampleRate: number): void {
    peer.streams.push(record);
    sockets.set(ws, record);
    const requestId = randomUUID();
    const drop = pendingDrop;
    pendingDrop = null;
    /** Start of the window the next Results covers: the end of the last final. */
    let windowStart = 0;
    let idle: NodeJS.Timeout | null = null;
    const send = (message: object): void => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    const results = (cursor: number, words: TimedWord[], final: boolean, how: string) => {
      send({
        type: 'Results',
        channel_index: [0, 1],
        duration: round3(cursor - windowStart),
        start: round3(windowStart),
        is_final: final,
        speech_final: final && how === 'silence',
        from_finalize: final && how === 'finalize',
        channel: {
          alternatives: [
            {
              transcript: words.map((w) => w.word).join(' '),
              confidence: 0.97,
              words: words.map((w) => ({
                word: w.word.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ''),
                start: round3(w.start),
                end: round3(w.end),
                confidence: 0.97,
                punctuated_word: w.word,
              })),
            },
          ],
        },
        metadata: {
          request_id: requestId,
          model_info: { name: 'general-nova-3', version: '2025-01-01.0', arch: 'nova-3' },
          model_uuid: 'peer-model',
        },
      });
    };
    let endReason = 'silence';
    const segmenter = new Segmenter(
      {
        sampleRate,
        threshold: opts.threshold ?? 500,
        silenceMs: opts.silenceMs ?? 400,
        interimEveryMs: opts.interimEveryMs ?? 200,
      },
      {
        nextText: () => (script.byAudio ? null : script.next()),
        interim: (segment, cursor) => {
          const words = segmentWords(script, segment, false);
          if (words) results(cursor, words, false, '');
          changed();
        },
        final: (segment, cursor) => {
          const words = segmentWords(script, segment, true)!;
          results(cursor, words, true, endReason);
          if (words.length > 0) record.finals.push(words.map((w) => w.word).join(' '));
          windowStart = cursor;
          if (record.query.utterance_end_ms) {
            send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: round3(segment.lastVoiced) });
          }
          changed();
        },
      },
    );
    const armIdle = (): void => {
      if (idle) clearTimeout(idle);
      idle = setTimeout(() => {
        record.closed = { by: 'idle', code: 1011 };
        ws.close(
          1011,
          'Deepgram did not receive audio data or a text message within the timeout window. See https://dpgr.am/net0001',
        );
      }, idleTimeoutMs);
    };
    armIdle();

    ws.on('message', (data: RawData, isBinary: boolean) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      if (isBinary) {
        record.bytes += buf.length;
        armIdle();
        segmenter.push(buf);
        if (drop && record.bytes >= drop.afterBytes && !record.closed) {
          record.closed = { by: 'drop', code: 1006 };
          ws.terminate();
        }
        changed();
        return;
      }
      let message: { type?: string };
      try {
        message = JSON.parse(buf.toString('utf8')) as { type?: string };
      } catch {
        return;
      }
      if (message.type === 'KeepAlive') {
        record.keepAlives++;
        armIdle();
      } else if (message.type === 'Finalize') {
        record.finalizes++;
        endReason = 'finalize';
        segmenter.end();
        endReason = 'silence';
      } else if (message.type === 'CloseStream') {
        record.closeStreams++;
        endReason = 'finalize';
        segmenter.end();
        send({
          type: 'Metadata',
          transaction_key: 'deprecated',
          request_id: requestId,
          sha256: 'peer',
          created: new Date().toISOString(),
          duration: round3(segmenter.cursor),
          channels: 1,
          models: ['peer-model'],
          model_info: { 'peer-model': { name: 'general-nova-3', version: '2025-01-01.0', arch: 'nova-3' } },
        });
        record.closed = { by: 'close-stream', code: 1000 };
        ws.close(1000);
      }
      changed();
    });
    ws.on('close', (code) => {
      if (idle) clearTimeout(idle);
      sockets.delete(ws);
      record.closed ??= { by: 'client', code };
      // Words never finalized are recognised again from the audio the client sends again: after
      // a drop, or a client that vanished without a close frame (1006: its process was killed).
      if (segmenter.open?.text && (record.closed.by === 'drop' || code === 1006))
        script.giveBack(segmenter.open.text);
      changed();
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  (peer as { url: string }).url =
    `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return peer;
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;
