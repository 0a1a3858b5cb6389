import { createHash, randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply } from 'fastify';

/**
 * A local OpenAI-compatible server: `POST /v1/chat/completions`, answered whole or streamed
 * as server-sent events (`chat.completion.chunk` objects, then `data: [DONE]`), with `usage`
 * (prompt tokens counted at 4 characters each), JSON mode and `Authorization: Bearer <key>`.
 * Answers are deterministic: the next canned answer queued by the test, else a digest of the
 * last user message. Failure switches make it fail the way OpenAI does.
 */
export type OpenAiFailure =
  /** An error status with OpenAI's error body (401, 429, 500, ...); `retryAfterMs` sets retry-after-ms. */
  | { status: number; message?: string; retryAfterMs?: number }
  /** No answer for this long (longer than the client's timeout: the client gives up). */
  | { delayMs: number };

export interface ChatCompletionRecord {
  model: string;
  messages: { role: string; content: string }[];
  stream: boolean;
  temperature: number | undefined;
  responseFormat: string | undefined;
  authorization: string | undefined;
  /** Characters of all message contents: what the client sent. */
  promptChars: number;
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
  /** Resolves when `n` requests have arrived. */
  waitForRequests(n: number): Promise<void>;
  /** The env a service needs to use this peer. */
  env(model?: string): Record<string, string>;
  close(): Promise<void>;
}

/** Tokens as the peer counts them: one per 4 characters, rounded up. */
export const peerTokens = (text: string): number => Math.ceil(text.length / 4);

/** The answer when no canned answer is queued: a digest of the last user message. */
export function defaultOpenAiAnswer(lastUser: string, json: boolean): string {
  const digest = createHash('sha256').update(lastUser).digest('hex').slice(0, 12);
  return json
    ? JSON.stringify({ reply: `digest ${digest}` })
    : `Answer ${digest} to ${lastUser.length} characters.`;
}

const ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'server_error', code: null },
};

interface CompletionBody {
  model?: unknown;
  messages?: unknown;
  stream?: unknown;
  temperature?: unknown;
  response_format?: { type?: unknown };
  stream_options?: { include_usage?: unknown };
}

export async function startOpenAiPeer(opts: { apiKey?: string } = {}): Promise<OpenAiPeer> {
  const apiKey = opts.apiKey ?? `sk-peer-${randomUUID()}`;
  const app = Fastify({ logger: false, bodyLimit: 50 * 1024 * 1024 });
  const waiters: { n: number; resolve: () => void }[] = [];
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
    waitForRequests(n) {
      if (peer.requests.length >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    env: (model = 'peer-model') => ({
      OPENAI_API_KEY: apiKey,
      OPENAI_BASE_URL: peer.url,
      OPENAI_MODEL: model,
    }),
    async close() {
      for (const t of pending) clearTimeout(t);
      await app.close();
    },
  };

  app.post<{ Body: CompletionBody }>('/v1/chat/completions', async (req, reply) => {
    const body = req.body ?? {};
    const messages = Array.isArray(body.messages)
      ? (body.messages as { role?: unknown; content?: unknown }[]).map((m) => ({
          role: String(m.role),
          content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
        }))
      : [];
    const json = body.response_format?.type === 'json_object';
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
        failure.retryAfterMs,
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

    const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const answer = peer.answers.shift() ?? defaultOpenAiAnswer(lastUser, json);
    record.promptTokens = peerTokens(messages.map((m) => m.content).join(''));
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

  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  (peer as { url: string }).url = `${address}/v1`;
  return peer;
}
