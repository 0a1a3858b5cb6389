import { spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply } from 'fastify';
import {
  defaultModelInfo,
  effectiveContext,
  exampleOf,
  registerModelInfo,
  type ModelInfo,
} from './openai-models.ts';
import { featuresOf16kMono, FRAME_SECONDS, Script, type ScriptLine } from './heard-speech.ts';

/**
 * A local OpenAI-compatible server: `POST /v1/audio/transcriptions` (see TranscriptionPeer)
 * and `POST /v1/chat/completions`, answered whole or streamed
 * as server-sent events (`chat.completion.chunk` objects, then `data: [DONE]`), with `usage`
 * (prompt tokens counted at 4 characters each), JSON mode and `Authorization: Bearer <key>`.
 * Answers are deterministic: the next canned answer queued by the test, else a digest of the
 * last user message. Failure switches make it fail the way OpenAI does.
 */
type OpenAiFailure =
  /** An error status with OpenAI's error body (401, 429, 500, ...); `retryAfterMs` sets retry-after-ms. */
  | { status: number; message?: string; retryAfterMs?: number }
  /** No answer for this long (longer than the client's timeout: the client gives up). */
  | { delayMs: number }
  /** A 429 with `retry-after: <seconds>` (what OpenAI and proxies in front of local servers send). */
  | { status: 429; retryAfterSeconds: number; message?: string };

interface ChatCompletionRecord {
  model: string;
  messages: { role: string; content: string }[];
  stream: boolean;
  temperature: number | undefined;
  responseFormat: string | undefined;
  authorization: string | undefined;
  /** Characters of all message contents: what the client sent. */
  promptChars: number;
  /** The answer's token limit asked for (max_tokens or max_completion_tokens). */
  maxTokens: number | undefined;
  /** The JSON schema of a json_schema response_format. */
  schema: unknown;
  /** The prompt and the answer limit did not fit the model's context (refused, or cut by Ollama). */
  overContext: boolean;
  /** The prompt tokens the peer reported (0 for a failed request). */
  promptTokens: number;
  status: number;
}

export interface OpenAiPeer {
  readonly url: string;
  readonly apiKey: string;
  /** Answers for the next successful requests, one each, in order (JSON mode: the JSON text). */
  readonly answers: string[];
  /** Failures applied to the next requests, one each, in order. */
  readonly failures: OpenAiFailure[];
  /** Every request, in order of arrival. */
  readonly requests: ChatCompletionRecord[];
  /** False: answers carry no `usage` (the client has to estimate). */
  sendUsage: boolean;
  /** What the server says of the model's context, and how it holds requests to it. */
  modelInfo: ModelInfo;
  /** The model ids `GET /v1/models` lists ('peer-model', 'peer-model-1' and those env() named). */
  readonly models: Set<string>;
  /** Resolves when `n` requests have arrived. */
  waitForRequests(n: number): Promise<void>;
  /** The env a service needs to use this peer. */
  env(model?: string): Record<string, string>;
  /** The speech-to-text side of the server. */
  readonly transcription: TranscriptionPeer;
  close(): Promise<void>;
}

/**
 * `POST /v1/audio/transcriptions` as OpenAI and the self-hosted servers that copy it
 * (faster-whisper, whisper.cpp, LocalAI, vLLM) speak it: multipart with `file`, `model`,
 * `response_format` (json, text or verbose_json), `timestamp_granularities[]`, `prompt` and
 * `language`. It cannot recognise speech, so it hears where speech is: the audio (WAV read
 * directly, anything else decoded with ffmpeg) is cut into voiced segments (20 ms frames above
 * an RMS threshold, ended by `silenceMs` of quiet), each with its true start and end. With a
 * script (`script()`, lines with their audio) each segment is answered with the words of the
 * line whose audio it holds (heard-speech.ts: a cut utterance gets only the words it covers);
 * else each gets the next of `lines` (the same line again when the same audio is sent again,
 * as a retry does), or a line that names its times. It fails as the real ones do: 401 for a missing
 * or wrong key when it has one, 413 past its upload limit, 400 for a bad form, and the queued
 * failures (429 with retry-after, 500, a slow answer).
 */
interface TranscriptionPeer {
  /** Null: no key asked for (a local server); else `Authorization: Bearer <key>` is required. */
  apiKey: string | null;
  /** Uploads larger than this answer 413 (OpenAI: 25 MB). */
  maxBytes: number;
  /** Silence that ends a voiced segment. */
  silenceMs: number;
  /** Texts of the next voiced segments, one each, in order of arrival (without `script`). */
  readonly lines: string[];
  /** Lines with the audio played for them: each segment is answered with what it covers. */
  script(lines: readonly ScriptLine[]): void;
  /** A diarizing server: the label of segment `index` of a request (WhisperX-style `SPEAKER_00`). */
  speakerOf: ((index: number, segment: { start: number; end: number }) => string) | null;
  /** Failures applied to the next transcription requests, one each, in order. */
  readonly failures: OpenAiFailure[];
  readonly requests: TranscriptionRecord[];
  /** Resolves when `n` transcription requests have arrived. */
  waitForRequests(n: number): Promise<void>;
  /** The env a service needs to transcribe with this peer. */
  env(model?: string): Record<string, string>;
}

interface TranscriptionRecord {
  model: string | undefined;
  responseFormat: string | undefined;
  granularities: string[];
  prompt: string | undefined;
  language: string | undefined;
  filename: string | undefined;
  fileType: string | undefined;
  /** Bytes of the uploaded file (of the whole body for a refused one). */
  bytes: number;
  /** Seconds of audio heard in it. */
  seconds: number;
  authorization: string | undefined;
  status: number;
  /** The segments answered. */
  segments: { start: number; end: number; text: string; speaker?: string }[];
}

/** 16-bit PCM of a file: WAV read directly, anything else through ffmpeg, as mono at `rate`. */
function audioOf(data: Buffer): { pcm: Buffer; rate: number } | null {
  if (data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WAVE') {
    let at = 12;
    let channels = 1;
    let rate = 16_000;
    let bits = 16;
    while (at + 8 <= data.length) {
      const id = data.toString('latin1', at, at + 4);
      const size = data.readUInt32LE(at + 4);
      if (id === 'fmt ') {
        channels = data.readUInt16LE(at + 10);
        rate = data.readUInt32LE(at + 12);
        bits = data.readUInt16LE(at + 22);
      } else if (id === 'data') {
        if (bits !== 16) return null;
        const body = data.subarray(at + 8, Math.min(data.length, at + 8 + size));
        if (channels === 1) return { pcm: body, rate };
        const frames = Math.floor(body.length / (2 * channels));
        const mono = Buffer.alloc(frames * 2);
        for (let i = 0; i < frames; i++) mono.writeInt16LE(body.readInt16LE(i * 2 * channels), i * 2);
        return { pcm: mono, rate };
      }
      at += 8 + size + (size % 2);
    }
    return null;
  }
  const decoded = spawnSync(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-i',
      'pipe:0',
      '-ac',
      '1',
      '-ar',
      '16000',
      '-f',
      's16le',
      'pipe:1',
    ],
    { input: data, maxBuffer: 1024 * 1024 * 1024 },
  );
  if (decoded.status !== 0 || !decoded.stdout || decoded.stdout.length === 0) return null;
  return { pcm: decoded.stdout, rate: 16_000 };
}

/** Mono s16le at `rate` as 16 kHz (nearest sample: enough to judge loudness and bands by). */
function to16k(pcm: Buffer, rate: number): Buffer {
  if (rate === 16_000) return pcm;
  const n = Math.floor(((pcm.length / 2) * 16_000) / rate);
  const out = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) out.writeInt16LE(pcm.readInt16LE(Math.floor((i * rate) / 16_000) * 2), i * 2);
  return out;
}

/** Voiced runs of `pcm`: 20 ms frames above the threshold, ended by `silenceMs` of quiet. */
function voicedSegments(pcm: Buffer, rate: number, silenceMs: number): { start: number; end: number }[] {
  const frame = Math.round(rate * 0.02) * 2;
  const out: { start: number; end: number }[] = [];
  let open: { start: number; end: number } | null = null;
  for (let at = 0, i = 0; at + frame <= pcm.length; at += frame, i++) {
    let sum = 0;
    for (let j = at; j < at + frame; j += 2) {
      const v = pcm.readInt16LE(j);
      sum += v * v;
    }
    const voiced = Math.sqrt(sum / (frame / 2)) >= 400;
    const start = i * 0.02;
    const end = start + 0.02;
    if (voiced) {
      if (!open) open = { start, end };
      open.end = end;
    } else if (open && (end - open.end) * 1000 >= silenceMs) {
      out.push(open);
      open = null;
    }
  }
  if (open) out.push(open);
  return out.map((s) => ({ start: Math.round(s.start * 100) / 100, end: Math.round(s.end * 100) / 100 }));
}

/** Tokens as the peer counts them: one per 4 characters, rounded up. */
export const peerTokens = (text: string): number => Math.ceil(text.length / 4);

/** The answer when no canned answer is queued: a digest of the last user message. */
function defaultOpenAiAnswer(lastUser: string, json: boolean): string {
  const digest = createHash('sha256').update(lastUser).digest('hex').slice(0, 12);
  return json
    ? JSON.stringify({ reply: `digest ${digest}` })
    : `Answer ${digest} to ${lastUser.length} characters.`;
}

const ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  413: { type: 'server_error', code: null },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'server_error', code: null },
};

interface CompletionBody {
  model?: unknown;
  messages?: unknown;
  stream?: unknown;
  temperature?: unknown;
  response_format?: { type?: unknown; json_schema?: { schema?: unknown } };
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
  stream_options?: { include_usage?: unknown };
}

export async function startOpenAiPeer(opts: { apiKey?: string } = {}): Promise<OpenAiPeer> {
  const apiKey = opts.apiKey ?? `sk-peer-${randomUUID()}`;
  const app = Fastify({ logger: false, bodyLimit: 50 * 1024 * 1024, forceCloseConnections: true });
  const waiters: { n: number; resolve: () => void }[] = [];
  // The models it serves: these two and every one a test's env named.
  const models = new Set(['peer-model', 'peer-model-1']);
  const pending = new Set<ReturnType<typeof setTimeout>>();

  const sendError = (reply: FastifyReply, status: number, message: string, retryAfterMs?: number) => {
    if (retryAfterMs !== undefined) void reply.header('retry-after-ms', String(retryAfterMs));
    const t = ERROR_TYPES[status] ?? { type: 'server_error', code: null };
    return reply.code(status).send({ error: { message, type: t.type, param: null, code: t.code } });
  };

  const peer: OpenAiPeer = {
    url: '',
    apiKey,
    answers: [],
    failures: [],
    requests: [],
    sendUsage: true,
    modelInfo: defaultModelInfo(),
    models,
    // Set just below, once its state exists.
    transcription: undefined as unknown as TranscriptionPeer,
    waitForRequests(n) {
      if (peer.requests.length >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    env: (model = 'peer-model') => (
      models.add(model),
      {
        OPENAI_API_KEY: apiKey,
        OPENAI_BASE_URL: peer.url,
        OPENAI_MODEL: model,
      }
    ),
    async close() {
      for (const t of pending) clearTimeout(t);
      await app.close();
    },
  };

  const transcriptionWaiters: { n: number; resolve: () => void }[] = [];
  /** Texts given to audio already heard, by its digest and segment, so a retry hears the same. */
  const heard = new Map<string, string>();
  const script = new Script();
  const transcription: TranscriptionPeer = {
    apiKey: null,
    maxBytes: 25 * 1024 * 1024,
    silenceMs: 300,
    lines: [],
    script: (lines) => script.set(lines),
    speakerOf: null,
    failures: [],
    requests: [],
    waitForRequests(n) {
      if (transcription.requests.length >= n) return Promise.resolve();
      return new Promise((resolve) => transcriptionWaiters.push({ n, resolve }));
    },
    env: (model = 'whisper-peer') => ({
      TRANSCRIPTION_BASE_URL: peer.url,
      ...(transcription.apiKey ? { TRANSCRIPTION_API_KEY: transcription.apiKey } : {}),
      TRANSCRIPTION_MODEL: model,
    }),
  };
  (peer as { transcription: TranscriptionPeer }).transcription = transcription;

  // The multipart body is taken whole (up to far past the limit) and judged by the route, which
  // answers 413 past `maxBytes` as OpenAI does.
  app.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer', bodyLimit: 600 * 1024 * 1024 },
    (_req, body, done) => done(null, body),
  );

  /** Waits `ms`, or until the client hangs up; true when it did (nothing is to be answered then). */
  const delay = async (ms: number, reply: FastifyReply): Promise<boolean> => {
    const socket = reply.raw.socket;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        pending.delete(t);
        socket?.off('close', done);
        resolve();
      };
      const t = setTimeout(done, ms);
      pending.add(t);
      socket?.on('close', done);
    });
    return !socket || socket.destroyed;
  };

  app.post('/v1/audio/transcriptions', async (req, reply) => {
    const raw = req.body as Buffer;
    const record: TranscriptionRecord = {
      model: undefined,
      responseFormat: undefined,
      granularities: [],
      prompt: undefined,
      language: undefined,
      filename: undefined,
      fileType: undefined,
      bytes: raw.length,
      seconds: 0,
      authorization: req.headers.authorization,
      status: 200,
      segments: [],
    };
    transcription.requests.push(record);
    for (const w of transcriptionWaiters.filter((x) => transcription.requests.length >= x.n)) {
      transcriptionWaiters.splice(transcriptionWaiters.indexOf(w), 1);
      w.resolve();
    }
    const failure = transcription.failures.shift();
    if (failure && 'delayMs' in failure && (await delay(failure.delayMs, reply))) {
      record.status = 499;
      reply.hijack();
      return;
    }
    if (transcription.apiKey !== null && req.headers.authorization !== `Bearer ${transcription.apiKey}`) {
      record.status = 401;
      return sendError(reply, 401, 'Incorrect API key provided.');
    }
    if (raw.length > transcription.maxBytes) {
      record.status = 413;
      return sendError(
        reply,
        413,
        `Maximum content size limit (${transcription.maxBytes}) exceeded (${raw.length} bytes read)`,
      );
    }
    if (failure && 'status' in failure) {
      record.status = failure.status;
      if ('retryAfterSeconds' in failure) void reply.header('retry-after', String(failure.retryAfterSeconds));
      return sendError(
        reply,
        failure.status,
        failure.message ?? `Peer failure ${failure.status}`,
        'retryAfterMs' in failure ? failure.retryAfterMs : undefined,
      );
    }
    let form: FormData;
    try {
      form = await new Response(raw, {
        headers: { 'content-type': String(req.headers['content-type']) },
      }).formData();
    } catch {
      record.status = 400;
      return sendError(reply, 400, 'Could not parse multipart form');
    }
    const field = (name: string) => {
      const v = form.get(name);
      return typeof v === 'string' ? v : undefined;
    };
    const file = form.get('file');
    record.model = field('model');
    record.responseFormat = field('response_format');
    record.granularities = [
      ...form.getAll('timestamp_granularities[]'),
      ...form.getAll('timestamp_granularities'),
    ].filter((v): v is string => typeof v === 'string');
    record.prompt = field('prompt');
    record.language = field('language');
    if (!file || typeof file === 'string') {
      record.status = 400;
      return sendError(reply, 400, "Missing required parameter: 'file'.");
    }
    record.filename = file.name;
    record.fileType = file.type;
    record.bytes = file.size;
    if (!record.model) {
      record.status = 400;
      return sendError(reply, 400, "Missing required parameter: 'model'.");
    }
    const format = record.responseFormat ?? 'json';
    if (!['json', 'text', 'verbose_json'].includes(format)) {
      record.status = 400;
      return sendError(reply, 400, `response_format '${format}' is not supported by this server.`);
    }
    if (record.granularities.length > 0 && format !== 'verbose_json') {
      record.status = 400;
      return sendError(reply, 400, 'timestamp_granularities requires response_format=verbose_json.');
    }
    const data = Buffer.from(await file.arrayBuffer());
    const audio = audioOf(data);
    if (!audio) {
      record.status = 400;
      return sendError(
        reply,
        400,
        'Audio file might be corrupted or unsupported. Supported formats: flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav, webm.',
      );
    }
    record.seconds = Math.round((audio.pcm.length / 2 / audio.rate) * 1000) / 1000;
    const digest = createHash('sha256').update(data).digest('hex');
    const features = script.byAudio ? featuresOf16kMono(to16k(audio.pcm, audio.rate)) : [];
    record.segments = voicedSegments(audio.pcm, audio.rate, transcription.silenceMs)
      .map((s, i) => {
        const key = `${digest}:${i}`;
        let text = heard.get(key);
        if (script.byAudio) {
          const frames = features.slice(
            Math.round(s.start / FRAME_SECONDS),
            Math.round(s.end / FRAME_SECONDS),
          );
          const words = script.hear(frames);
          text = words ? words.text : script.judgeable(frames) ? script.unscripted() : '';
        } else if (text === undefined) {
          text =
            transcription.lines.shift() ?? `Words from ${s.start.toFixed(2)} to ${s.end.toFixed(2)} seconds.`;
          heard.set(key, text);
        }
        const speaker = transcription.speakerOf?.(i, s);
        return { ...s, text, ...(speaker !== undefined ? { speaker } : {}) };
      })
      .filter((s) => s.text !== '');
    const text = record.segments.map((s) => s.text).join(' ');
    if (format === 'text') return reply.type('text/plain; charset=utf-8').send(`${text}\n`);
    if (format === 'json') return { text };
    return {
      task: 'transcribe',
      language: record.language ?? 'english',
      duration: record.seconds,
      text,
      segments: record.segments.map((s, id) => ({
        id,
        seek: 0,
        start: s.start,
        end: s.end,
        // Whisper's segments begin with a space.
        text: ` ${s.text}`,
        tokens: [],
        temperature: 0,
        avg_logprob: -0.2,
        compression_ratio: 1.2,
        no_speech_prob: 0.01,
        ...(s.speaker !== undefined ? { speaker: s.speaker } : {}),
      })),
    };
  });

  app.post<{ Body: CompletionBody }>('/v1/chat/completions', async (req, reply) => {
    const body = req.body ?? {};
    const messages = Array.isArray(body.messages)
      ? (body.messages as { role?: unknown; content?: unknown }[]).map((m) => ({
          role: String(m.role),
          content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
        }))
      : [];
    const json = body.response_format?.type === 'json_object';
    const schema =
      body.response_format?.type === 'json_schema' ? body.response_format.json_schema?.schema : undefined;
    const limit = body.max_completion_tokens ?? body.max_tokens;
    const maxTokens = typeof limit === 'number' ? limit : undefined;
    const promptChars = messages.reduce((n, m) => n + m.content.length, 0);
    const record: ChatCompletionRecord = {
      model: String(body.model),
      messages,
      stream: body.stream === true,
      temperature: typeof body.temperature === 'number' ? body.temperature : undefined,
      responseFormat: typeof body.response_format?.type === 'string' ? body.response_format.type : undefined,
      authorization: req.headers.authorization,
      promptChars,
      promptTokens: 0,
      status: 200,
      maxTokens,
      schema,
      overContext: false,
    };
    peer.requests.push(record);
    for (const w of waiters.filter((x) => peer.requests.length >= x.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }

    const failure = peer.failures.shift();
    if (failure && 'delayMs' in failure) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          pending.delete(t);
          resolve();
        }, failure.delayMs);
        pending.add(t);
        req.raw.on('close', () => {
          clearTimeout(t);
          pending.delete(t);
          resolve();
        });
      });
      if (req.raw.destroyed) {
        record.status = 499;
        return reply;
      }
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      record.status = 401;
      return sendError(reply, 401, 'Incorrect API key provided.');
    }
    if (failure && 'status' in failure) {
      record.status = failure.status;
      return sendError(
        reply,
        failure.status,
        failure.message ?? `Peer failure ${failure.status}`,
        'retryAfterMs' in failure ? failure.retryAfterMs : undefined,
      );
    }
    if (typeof body.model !== 'string' || messages.length === 0) {
      record.status = 400;
      return sendError(reply, 400, 'model and messages are required.');
    }
    if (json && !messages.some((m) => /json/i.test(m.content))) {
      // OpenAI refuses JSON mode when no message mentions JSON.
      record.status = 400;
      return sendError(
        reply,
        400,
        "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
      );
    }

    record.promptTokens = peerTokens(messages.map((m) => m.content).join(''));
    const context = effectiveContext(peer.modelInfo);
    if (record.promptTokens + (maxTokens ?? 0) > context) {
      record.overContext = true;
      if (peer.modelInfo.flavour !== 'ollama') {
        record.status = 400;
        return sendError(
          reply,
          400,
          `This model's maximum context length is ${context} tokens. However, you requested ${record.promptTokens + (maxTokens ?? 0)} tokens (${record.promptTokens} in the messages, ${maxTokens ?? 0} in the completion). Please reduce the length of the messages or completion.`,
        );
      }
    }
    const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const answer =
      peer.answers.shift() ??
      (schema ? JSON.stringify(exampleOf(schema, lastUser)) : defaultOpenAiAnswer(lastUser, json));
    const usage = {
      prompt_tokens: record.promptTokens,
      completion_tokens: peerTokens(answer),
      total_tokens: record.promptTokens + peerTokens(answer),
    };
    const id = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);

    if (body.stream === true) {
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      const chunk = (
        delta: Record<string, unknown>,
        finish: string | null,
        extra: Record<string, unknown> = {},
      ) =>
        `data: ${JSON.stringify({
          id,
          object: 'chat.completion.chunk',
          created,
          model: body.model,
          choices: [{ index: 0, delta, finish_reason: finish }],
          ...extra,
        })}\n\n`;
      res.write(chunk({ role: 'assistant', content: '' }, null));
      // A few pieces per answer, split at spaces, so a client sees several deltas.
      for (const piece of answer.match(/\S+\s*|\s+/g) ?? []) res.write(chunk({ content: piece }, null));
      res.write(chunk({}, 'stop'));
      if (peer.sendUsage && body.stream_options?.include_usage === true) {
        res.write(
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage })}\n\n`,
        );
      }
      res.end('data: [DONE]\n\n');
      return reply;
    }

    return {
      id,
      object: 'chat.completion',
      created,
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: answer, refusal: null },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      ...(peer.sendUsage ? { usage } : {}),
    };
  });

  registerModelInfo(
    app,
    () => peer.modelInfo,
    () => [...models],
  );

  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  (peer as { url: string }).url = `${address}/v1`;
  return peer;
}
