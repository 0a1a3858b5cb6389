import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { segmentWords, Segmenter, waitForChange, type TimedWord } from './deepgram-live.ts';
import { Script, type ScriptLine } from './heard-speech.ts';

/**
 * A local stand-in for AssemblyAI's Universal-Streaming API (v3, `wss://…/v3/ws`), speaking
 * its wire protocol: `Authorization: <key>` on the upgrade (or a `token` query parameter),
 * the options as query parameters (`sample_rate`, `encoding`, `format_turns`, JSON
 * `keyterms_prompt`), binary PCM in messages of 50 to 1000 ms, `Begin`, `Turn` (partial, end of
 * turn, then the formatted end when format_turns) and `Termination` out; `ForceEndpoint`,
 * `KeepAlive`, `Terminate` understood. Errors come as AssemblyAI sends them: after the
 * upgrade, an `Error` frame then a close with the same code (1008 for a bad key, 3009 past
 * the concurrent sessions, 3007 for a chunk of the wrong length).
 *
 * The SDK only accepts a wss:// URL, so the peer serves TLS with a throwaway self-signed
 * certificate; a test process trusts it with NODE_TLS_REJECT_UNAUTHORIZED=0 (Node 20 has no
 * way to add a CA at run time, and the SDK passes no TLS options to its socket).
 *
 * Recognition follows a script, as in the Deepgram live peer (see Segmenter there): only the
 * words whose audio arrived are answered (heard-speech.ts).
 */
interface AssemblyAiLiveSession {
  id: string;
  query: Record<string, string>;
  keyterms: string[];
  bytes: number;
  /** Audio messages received, with their length in ms. */
  chunkMs: number[];
  keepAlives: number;
  forceEndpoints: number;
  terminates: number;
  finals: string[];
  closed: { by: 'client' | 'terminate' | 'error' | 'drop'; code: number } | null;
}

export interface AssemblyAiLivePeer {
  /** The wss URL of the streaming endpoint (…/v3/ws). */
  readonly url: string;
  readonly apiKey: string;
  maxSessions: number;
  readonly sessions: AssemblyAiLiveSession[];
  /** Connections refused after the upgrade, by close code. */
  readonly refusals: number[];
  script(lines: readonly ScriptLine[]): void;
  dropAll(): void;
  dropNext(opts?: { afterBytes?: number }): void;
  waitFor(what: string, probe: (peer: AssemblyAiLivePeer) => boolean, timeoutMs?: number): Promise<void>;
  openSessions(): number;
  env(): Record<string, string>;
  close(): Promise<void>;
}

export interface AssemblyAiLivePeerOptions {
  apiKey?: string;
  maxSessions?: number;
  threshold?: number;
  silenceMs?: number;
  interimEveryMs?: number;
}

function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'aai-peer-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** AssemblyAI's unformatted text: lower case, no punctuation. */
const unformatted = (words: string[]): string =>
  words.map((w) => w.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '')).join(' ');

export async function startAssemblyAiLivePeer(
  opts: AssemblyAiLivePeerOptions = {},
): Promise<AssemblyAiLivePeer> {
  const apiKey = opts.apiKey ?? `aai-${randomUUID()}`;
  const changes = new EventEmitter();
  changes.setMaxListeners(100);
  const changed = (): boolean => changes.emit('change');
  const script = new Script();
  const sockets = new Map<WebSocket, AssemblyAiLiveSession>();
  let pendingDrop: { afterBytes: number } | null = null;

  const server: Server = createServer(selfSignedCertificate(), (_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server, path: '/v3/ws' });

  const peer: AssemblyAiLivePeer = {
    url: '',
    apiKey,
    maxSessions: opts.maxSessions ?? 100,
    sessions: [],
    refusals: [],
    script: (lines) => script.set(lines),
    dropAll() {
      for (const [ws, session] of sockets) {
        session.closed = { by: 'drop', code: 1006 };
        ws.terminate();
      }
    },
    dropNext: (o = {}) => {
      pendingDrop = { afterBytes: o.afterBytes ?? 1 };
    },
    waitFor: (what, probe, timeoutMs) => waitForChange(changes, what, () => probe(peer), timeoutMs),
    openSessions: () => sockets.size,
    env: () => ({ ASSEMBLYAI_API_KEY: apiKey, ASSEMBLYAI_STREAMING_URL: peer.url }),
    async close() {
      for (const ws of sockets.keys()) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const fail = (ws: WebSocket, code: number, error: string): void => {
    ws.send(JSON.stringify({ type: 'Error', error_code: code, error }));
    ws.close(code, error.length <= 123 ? error : 'See Error message for details');
  };

  wss.on('connection', (ws, req) => {
    const url = new URL(req.url ?? '/', 'https://peer');
    const authorized = req.headers.authorization === apiKey || url.searchParams.get('token') === apiKey;
    if (!authorized) {
      peer.refusals.push(1008);
      fail(ws, 1008, 'Unauthorized Connection: Invalid API key');
      changed();
      return;
    }
    if (sockets.size >= peer.maxSessions) {
      peer.refusals.push(3009);
      fail(ws, 3009, 'Unauthorized Connection: Too many concurrent sessions');
      changed();
      return;
    }
    const query = Object.fromEntries(url.searchParams);
    let keyterms: string[] = [];
    try {
      keyterms = query.keyterms_prompt ? (JSON.parse(query.keyterms_prompt) as string[]) : [];
    } catch {
      fail(ws, 3006, 'Invalid Message: keyterms_prompt is not a JSON list');
      return;
    }
    const session: AssemblyAiLiveSession = {
      id: randomUUID(),
      query,
      keyterms,
      bytes: 0,
      chunkMs: [],
      keepAlives: 0,
      forceEndpoints: 0,
      terminates: 0,
      finals: [],
      closed: null,
    };
    peer.sessions.push(session);
    sockets.set(ws, session);
    const drop = pendingDrop;
    pendingDrop = null;
    const sampleRate = Number(query.sample_rate) || 16_000;
    const formatTurns = query.format_turns === 'true';
    const started = performance.now();
    let turnOrder = 0;
    const send = (message: object): void => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    const turn = (words: TimedWord[], endOfTurn: boolean, formatted: boolean) => {
      const texts = words.map((w) => w.word);
      send({
        type: 'Turn',
        turn_order: turnOrder,
        turn_is_formatted: formatted,
        end_of_turn: endOfTurn,
        transcript: formatted ? texts.join(' ') : unformatted(texts),
        end_of_turn_confidence: endOfTurn ? 0.9 : 0.1,
        words: words.map((w) => ({
          start: Math.round(w.start * 1000),
          end: Math.round(w.end * 1000),
          confidence: 0.95,
          text: formatted ? w.word : unformatted([w.word]),
          word_is_final: true,
        })),
      });
    };
    const segmenter = new Segmenter(
      {
        sampleRate,
        threshold: opts.threshold ?? 500,
        silenceMs: opts.silenceMs ?? 400,
        interimEveryMs: opts.interimEveryMs ?? 200,
      },
      {
        nextText: () => (script.byAudio ? null : script.next()),
        interim: (segment) => {
          const words = segmentWords(script, segment, false);
          if (words) turn(words, false, false);
          changed();
        },
        final: (segment) => {
          const words = segmentWords(script, segment, true)!;
          turn(words, true, false);
          if (formatTurns) turn(words, true, true);
          if (words.length > 0) session.finals.push(words.map((w) => w.word).join(' '));
          turnOrder++;
          changed();
        },
      },
    );

    send({ type: 'Begin', id: session.id, expires_at: Math.floor(Date.now() / 1000) + 3 * 3600 });
    changed();

    ws.on('message', (data: RawData, isBinary: boolean) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      if (isBinary) {
        const ms = (buf.length / 2 / sampleRate) * 1000;
        session.chunkMs.push(ms);
        if (ms < 50 || ms > 1000) {
          session.closed = { by: 'error', code: 3007 };
          fail(ws, 3007, `Input duration violation: ${ms.toFixed(0)} ms. Expected between 50 and 1000 ms`);
          changed();
          return;
        }
        session.bytes += buf.length;
        segmenter.push(buf);
        if (drop && session.bytes >= drop.afterBytes && !session.closed) {
          session.closed = { by: 'drop', code: 1006 };
          ws.terminate();
        }
        changed();
        return;
      }
      let message: { type?: string };
      try {
        message = JSON.parse(buf.toString('utf8')) as { type?: string };
      } catch {
        session.closed = { by: 'error', code: 3006 };
        fail(ws, 3006, `Invalid JSON: ${buf.toString('utf8').slice(0, 60)}`);
        return;
      }
      if (message.type === 'KeepAlive') session.keepAlives++;
      else if (message.type === 'ForceEndpoint') {
        session.forceEndpoints++;
        segmenter.end();
      } else if (message.type === 'Terminate') {
        session.terminates++;
        segmenter.end();
        send({
          type: 'Termination',
          audio_duration_seconds: Math.round(segmenter.cursor),
          session_duration_seconds: Math.round((performance.now() - started) / 1000),
        });
        session.closed = { by: 'terminate', code: 1000 };
        ws.close(1000);
      } else if (message.type !== 'UpdateConfiguration') {
        session.closed = { by: 'error', code: 3006 };
        fail(ws, 3006, `Invalid Message Type: ${String(message.type)}`);
      }
      changed();
    });
    ws.on('close', (code) => {
      sockets.delete(ws);
      session.closed ??= { by: 'client', code };
      if (segmenter.open?.text && session.closed.by === 'drop') script.giveBack(segmenter.open.text);
      changed();
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  (peer as { url: string }).url =
    `wss://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v3/ws`;
  return peer;
}
