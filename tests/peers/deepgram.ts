import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply } from 'fastify';

/**
 * A local stand-in for Deepgram's pre-recorded API (`POST /v1/listen`), speaking its wire
 * format: `Authorization: Token <key>`, the options as query parameters, the audio as the raw
 * body, and the response with `metadata.duration`, `results.channels[].alternatives[].words`
 * (with diarized `speaker`) and `results.utterances`. It reads the whole body and counts it.
 * Failure switches make it fail the way Deepgram does.
 */
interface DeepgramUtterance {
  /** Seconds from the start. */
  start: number;
  /** 0-based, as Deepgram's diarization numbers speakers. */
  speaker: number;
  transcript: string;
}

type DeepgramFailure =
  /** An error status with Deepgram's error body (401 INVALID_AUTH, 429, 500, ...). */
  | { status: number; message?: string }
  /** The answer comes this late (the client times out first when its limit is shorter). */
  | { delayMs: number };

interface DeepgramRequestRecord {
  query: Record<string, string>;
  authorization: string | undefined;
  contentType: string | undefined;
  bytes: number;
  /** The first bytes of the body, to check what was sent. */
  head: Buffer;
  status: number;
}

export interface DeepgramPeer {
  readonly url: string;
  readonly apiKey: string;
  /** Lines to answer; default: derived from the number of bytes received. */
  script: ((bytes: number) => { utterances: DeepgramUtterance[]; duration: number }) | null;
  /** Failures applied to the next requests, one each, in order. */
  readonly failures: DeepgramFailure[];
  /** Every request, in order of arrival, once its body was read. */
  readonly requests: DeepgramRequestRecord[];
  /** Requests wait (after their body was read) until released; see `release`. */
  hold(): void;
  release(): void;
  /** Resolves when `n` requests have arrived (body read). */
  waitForRequests(n: number): Promise<void>;
  /** The env the transcript service needs to use this peer. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

/** What the peer says for a body of `bytes` bytes when no script is set. */
function defaultDeepgramScript(bytes: number): { utterances: DeepgramUtterance[]; duration: number } {
  return {
    duration: Math.round((bytes / 32_000 + 5) * 1000) / 1000,
    utterances: [
      { start: 1.2, speaker: 0, transcript: 'Welcome back to the table, everyone.' },
      { start: 3.6, speaker: 1, transcript: 'I roll for initiative.' },
      { start: 4.9, speaker: 0, transcript: `That recording had ${bytes} bytes.` },
    ],
  };
}

const ERROR_CODES: Record<number, string> = {
  400: 'Bad Request',
  401: 'INVALID_AUTH',
  402: 'ASR_PAYMENT_REQUIRED',
  403: 'INSUFFICIENT_PERMISSIONS',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

export async function startDeepgramPeer(opts: { apiKey?: string } = {}): Promise<DeepgramPeer> {
  const apiKey = opts.apiKey ?? `dg-${randomUUID()}`;
  const app = Fastify({ logger: false });
  // Audio arrives with its own type (audio/wav, application/octet-stream, ...): count it, keep none of it.
  app.addContentTypeParser('*', (_req, payload, done) => {
    let bytes = 0;
    const head: Buffer[] = [];
    let headBytes = 0;
    payload.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (headBytes < 64) {
        head.push(chunk.subarray(0, 64 - headBytes));
        headBytes += Math.min(chunk.length, 64 - headBytes);
      }
    });
    payload.on('end', () => done(null, { bytes, head: Buffer.concat(head) }));
    payload.on('error', (err) => done(err, undefined));
  });

  let held: Promise<void> | null = null;
  let releaseHeld: () => void = () => {};
  const waiters: { n: number; resolve: () => void }[] = [];

  const sendError = (reply: FastifyReply, status: number, message: string) =>
    reply.code(status).send({
      err_code: ERROR_CODES[status] ?? 'ERROR',
      err_msg: message,
      request_id: randomUUID(),
    });

  const peer: DeepgramPeer = {
    url: '',
    apiKey,
    script: null,
    failures: [],
    requests: [],
    hold() {
      if (!held) held = new Promise<void>((r) => (releaseHeld = r));
    },
    release() {
      releaseHeld();
      held = null;
    },
    waitForRequests(n) {
      if (peer.requests.length >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    env: () => ({ DEEPGRAM_API_KEY: apiKey, DEEPGRAM_API_URL: peer.url }),
    async close() {
      peer.release();
      await app.close();
    },
  };

  app.post<{ Querystring: Record<string, string> }>('/v1/listen', async (req, reply) => {
    const body = (req.body ?? { bytes: 0, head: Buffer.alloc(0) }) as { bytes: number; head: Buffer };
    const record: DeepgramRequestRecord = {
      query: { ...req.query },
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
      bytes: body.bytes,
      head: body.head,
      status: 200,
    };
    peer.requests.push(record);
    for (const w of waiters.filter((x) => peer.requests.length >= x.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    if (held) await held;
    const failure = peer.failures.shift();
    if (failure && 'delayMs' in failure) await new Promise((r) => setTimeout(r, failure.delayMs));
    if (req.headers.authorization !== `Token ${apiKey}`) {
      record.status = 401;
      return sendError(reply, 401, 'Invalid credentials.');
    }
    if (failure && 'status' in failure) {
      record.status = failure.status;
      return sendError(reply, failure.status, failure.message ?? `Peer failure ${failure.status}`);
    }
    if (body.bytes === 0) {
      record.status = 400;
      return sendError(reply, 400, 'Bad Request: failed to process audio: corrupt or unsupported data');
    }
    const { utterances, duration } = (peer.script ?? defaultDeepgramScript)(body.bytes);
    const diarize = req.query.diarize === 'true';
    const wordsOf = (u: DeepgramUtterance) =>
      u.transcript.split(/\s+/).map((w, i) => ({
        word: w.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ''),
        start: u.start + i * 0.3,
        end: u.start + i * 0.3 + 0.25,
        confidence: 0.98,
        ...(diarize ? { speaker: u.speaker, speaker_confidence: 0.9 } : {}),
        punctuated_word: w,
      }));
    return {
      metadata: {
        transaction_key: 'deprecated',
        request_id: randomUUID(),
        sha256: 'peer',
        created: new Date().toISOString(),
        duration,
        channels: 1,
        models: [randomUUID()],
        model_info: {},
      },
      results: {
        channels: [
          {
            alternatives: [
              {
                transcript: utterances.map((u) => u.transcript).join(' '),
                confidence: 0.98,
                words: utterances.flatMap(wordsOf),
              },
            ],
          },
        ],
        ...(req.query.utterances === 'true'
          ? {
              utterances: utterances.map((u) => ({
                start: u.start,
                end: u.start + u.transcript.split(/\s+/).length * 0.3,
                confidence: 0.98,
                channel: 0,
                transcript: u.transcript,
                words: wordsOf(u),
                speaker: diarize ? u.speaker : 0,
                id: randomUUID(),
              })),
            }
          : {}),
      },
    };
  });

  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  (peer as { url: string }).url =
    `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return peer;
}
