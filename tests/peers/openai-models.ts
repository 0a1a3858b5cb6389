import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/**
 * What OpenAI-compatible servers tell about a model's context, and how they treat a request
 * that does not fit it:
 * - 'vllm': `GET /v1/models` lists `max_model_len`; a longer request is refused with a 400
 *   in vLLM's words.
 * - 'ollama': `GET /v1/models` lists no length; `POST /api/show` gives the model's trained
 *   context (`model_info["llama.context_length"]`) and its `num_ctx` parameter when set,
 *   `GET /api/ps` the window a loaded model runs with. A longer prompt is cut silently, as
 *   Ollama does (the record says so).
 * - 'openai': no length anywhere (OpenAI's own API), a longer request refused.
 */
export interface ModelInfo {
  flavour: 'vllm' | 'ollama' | 'openai';
  /** The context the server enforces (vllm/openai); the model's trained context (ollama). */
  contextTokens: number;
  /** Ollama: the num_ctx the model's parameters set, if any. */
  numCtx: number | null;
  /** Ollama: the window the loaded model runs with (`/api/ps`); null: not loaded. */
  loadedContext: number | null;
}

export const defaultModelInfo = (): ModelInfo => ({
  flavour: 'vllm',
  contextTokens: 128_000,
  numCtx: null,
  loadedContext: null,
});

/** The window requests are held to: Ollama's is the smaller of its settings (4,096 by default). */
export function effectiveContext(info: ModelInfo): number {
  if (info.flavour !== 'ollama') return info.contextTokens;
  return Math.min(info.contextTokens, info.loadedContext ?? info.numCtx ?? 4_096);
}

export function registerModelInfo(app: FastifyInstance, info: () => ModelInfo, models: () => string[]): void {
  app.get('/v1/models', async () => ({
    object: 'list',
    data: models().map((id) => ({
      id,
      object: 'model',
      created: 1_700_000_000,
      owned_by: 'peer',
      ...(info().flavour === 'vllm' ? { root: id, max_model_len: info().contextTokens } : {}),
    })),
  }));
  app.post<{ Body: { model?: string } }>('/api/show', async (req, reply) => {
    const i = info();
    if (i.flavour !== 'ollama' || !models().includes(String(req.body?.model))) {
      return reply.code(404).send({ error: `model '${String(req.body?.model)}' not found` });
    }
    return {
      parameters: i.numCtx === null ? 'stop "<|eot_id|>"' : `num_ctx ${i.numCtx}\nstop "<|eot_id|>"`,
      details: { family: 'llama', parameter_size: '8.0B' },
      model_info: { 'general.architecture': 'llama', 'llama.context_length': i.contextTokens },
    };
  });
  app.get('/api/ps', async (_req, reply) => {
    const i = info();
    if (i.flavour !== 'ollama') return reply.code(404).send('404 page not found');
    return {
      models:
        i.loadedContext === null
          ? []
          : models().map((name) => ({ name, model: name, context_length: i.loadedContext })),
    };
  });
}

/** A JSON schema's simplest valid instance, its strings a digest of `source` (times: its first time). */
export function exampleOf(schema: unknown, source: string, key = ''): unknown {
  const s = (schema ?? {}) as { type?: string; properties?: Record<string, unknown>; items?: unknown };
  if (s.type === 'object') {
    return Object.fromEntries(
      Object.entries(s.properties ?? {}).map(([k, v]) => [k, exampleOf(v, source, k)]),
    );
  }
  if (s.type === 'array') return [exampleOf(s.items, source, key)];
  if (s.type === 'integer' || s.type === 'number') return 1;
  if (s.type === 'boolean') return true;
  if (key === 'time') return /\[(\d{2}:\d{2}:\d{2})\]/.exec(source)?.[1] ?? '00:00:00';
  return `${key || 'text'} ${createHash('sha256').update(source).digest('hex').slice(0, 8)}`;
}
