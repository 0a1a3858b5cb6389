import type OpenAI from 'openai';
import { redactUrl } from '@chronicler/kit';

/**
 * How many tokens one request to the configured model may hold, and where that number came
 * from. Sizing requests to the real window matters most for local servers: Ollama runs a model
 * with a small window (4,096 tokens unless told otherwise) and silently drops what does not
 * fit, so a summary of a long session would be a summary of its end.
 */
export interface ModelContext {
  tokens: number;
  /** Where the number came from, for the start-up log. */
  source: string;
  /** What the operator can do for a larger window (Ollama), when there is something. */
  advice?: string;
}

/** Assumed when the server says nothing: small enough for any current model. */
export const FALLBACK_CONTEXT_TOKENS = 8_192;
/** The window Ollama runs a model with unless num_ctx or OLLAMA_CONTEXT_LENGTH says otherwise. */
const OLLAMA_DEFAULT_CONTEXT = 4_096;

/** Fields servers use for a model's context on `GET /v1/models` (vLLM, SGLang, LM Studio, OpenRouter). */
const MODEL_LIST_FIELDS = ['max_model_len', 'context_length', 'context_window', 'max_context_length'];

/**
 * The context to size requests to: OPENAI_CONTEXT_TOKENS when set; else what the server tells
 * (`GET /v1/models`, then Ollama's `POST /api/show` and `GET /api/ps`); else a safe fallback.
 */
export async function discoverContext(
  client: OpenAI,
  model: string,
  override: number | undefined,
): Promise<ModelContext> {
  if (override !== undefined) return { tokens: override, source: 'OPENAI_CONTEXT_TOKENS' };
  const listed = await fromModelList(client, model).catch(() => null);
  if (listed) return listed;
  const known = await fromOpenAiTable(model);
  if (known) return known;
  const ollama = await fromOllama(client, model).catch(() => null);
  if (ollama) return ollama;
  return {
    tokens: FALLBACK_CONTEXT_TOKENS,
    source: `a safe default (${redactUrl(client.baseURL)} reported no context for ${model})`,
    advice: 'Set OPENAI_CONTEXT_TOKENS to the context the server runs the model with.',
  };
}

async function fromModelList(client: OpenAI, model: string): Promise<ModelContext | null> {
  for await (const entry of client.models.list({ timeout: 10_000, maxRetries: 1 })) {
    if (entry.id !== model) continue;
    const fields = entry as unknown as Record<string, unknown>;
    for (const field of MODEL_LIST_FIELDS) {
      const value = fields[field];
      if (typeof value === 'number' && Number.isInteger(value) && value > 0) {
        return { tokens: value, source: `GET /v1/models (${field})` };
      }
    }
    return null;
  }
  return null;
}

/** OpenAI's own models say nothing on /v1/models: gpt-tokenizer's model table knows their windows. */
async function fromOpenAiTable(model: string): Promise<ModelContext | null> {
  const table = (await import('gpt-tokenizer/models')) as unknown as Record<
    string,
    { context_window?: number } | undefined
  >;
  const window = table[model.replace(/^openai\//, '')]?.context_window;
  return typeof window === 'number' && window > 0
    ? { tokens: window, source: `gpt-tokenizer's table of OpenAI models (${model})` }
    : null;
}

/** Ollama's API lives beside its OpenAI-compatible one: http://host:11434/v1 -> http://host:11434. */
function ollamaRoot(baseURL: string): string {
  return baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
}

async function fromOllama(client: OpenAI, model: string): Promise<ModelContext | null> {
  const root = ollamaRoot(client.baseURL);
  const show = await fetch(`${root}/api/show`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!show.ok) return null;
  const info = (await show.json()) as { model_info?: Record<string, unknown>; parameters?: string };
  const trained = Object.entries(info.model_info ?? {}).find(([k]) => k.endsWith('.context_length'))?.[1];
  const modelMax = typeof trained === 'number' && trained > 0 ? trained : null;
  const numCtx = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(info.parameters ?? '')?.[1];
  // A loaded model shows the window it actually runs with (OLLAMA_CONTEXT_LENGTH included).
  const running = await fetch(`${root}/api/ps`, { signal: AbortSignal.timeout(10_000) })
    .then(async (r) =>
      r.ok
        ? ((await r.json()) as { models?: { name?: string; model?: string; context_length?: number }[] })
        : null,
    )
    .catch(() => null);
  const loaded = running?.models?.find((m) => m.name === model || m.model === model)?.context_length;
  let effective: number;
  let how: string;
  if (typeof loaded === 'number' && loaded > 0) {
    effective = loaded;
    how = 'the window Ollama runs it with (GET /api/ps)';
  } else if (numCtx) {
    effective = Number(numCtx);
    how = "the model's num_ctx (POST /api/show)";
  } else {
    effective = OLLAMA_DEFAULT_CONTEXT;
    how = "Ollama's default window";
  }
  const tokens = modelMax ? Math.min(modelMax, effective) : effective;
  const context: ModelContext = {
    tokens,
    source: `Ollama: ${how}${modelMax ? `; the model supports ${modelMax} (POST /api/show)` : ''}`,
  };
  if (modelMax && effective < modelMax) {
    const wanted = Math.min(modelMax, 32_768);
    context.advice =
      `Ollama runs ${model} with ${effective} tokens of its ${modelMax}. For longer requests, start the ` +
      `Ollama server with OLLAMA_CONTEXT_LENGTH=${wanted} (or PARAMETER num_ctx ${wanted} in a Modelfile) ` +
      `and set OPENAI_CONTEXT_TOKENS=${wanted} here.`;
  }
  return context;
}
