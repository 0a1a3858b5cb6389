import { Env } from '@chronicler/kit';
import { Type, type Static } from '@sinclair/typebox';

/**
 * The AI settings every AI-using service reads (summary, chat, planning). No key and no base
 * URL: the built-in offline engine answers. The model id and its prices are configuration,
 * never constants in code (models are retired): OPENAI_MODEL is required as soon as a key or
 * a base URL is set.
 */
export const AiConfigSchema = Type.Object({
  OPENAI_API_KEY: Type.Optional(Type.String()),
  /** Any OpenAI-compatible server (Ollama, vLLM, llama.cpp): e.g. http://localhost:11434/v1. */
  OPENAI_BASE_URL: Type.Optional(Env.url()),
  OPENAI_MODEL: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * The context the server runs the model with, in tokens. Unset: learnt from the server
   * (`GET /v1/models` max_model_len; Ollama's `/api/show` and `/api/ps`), else 8,192.
   */
  OPENAI_CONTEXT_TOKENS: Type.Optional(Type.Integer({ minimum: 2_000 })),
  /** Limit of one model call, and how often a 429 or 5xx is retried (with backoff). */
  OPENAI_TIMEOUT_MS: Type.Integer({ default: 120_000, minimum: 1_000 }),
  OPENAI_MAX_RETRIES: Type.Integer({ default: 3, minimum: 0, maximum: 10 }),
  /** USD per million tokens, for the cost estimate of each request (rounded to 4 decimals). */
  AI_PRICE_INPUT_PER_MILLION_USD: Type.Number({ default: 0.1, minimum: 0 }),
  AI_PRICE_OUTPUT_PER_MILLION_USD: Type.Number({ default: 0.4, minimum: 0 }),
  /** AI requests per user per minute, across every replica (Redis in the cluster). */
  AI_RATE_LIMIT_PER_MINUTE: Type.Integer({ default: 30, minimum: 1 }),
  /**
   * Worker threads of the offline engine (no model configured): its work on a long transcript
   * takes seconds of CPU, kept off the thread that serves requests. 0 runs it on that thread.
   */
  AI_OFFLINE_THREADS: Type.Integer({ default: 1, minimum: 0, maximum: 16 }),
  /**
   * Nice level of those threads (Linux: the thread's own; 0 leaves it at the process's). An
   * automatic summary is batch work: when 200 live sessions end together, their summaries must
   * not take the cores from the lines still flowing to viewers (issue 46). Nice 10 gives a
   * thread about a tenth of a core's share against the request path while both want it, and
   * all of an idle core.
   */
  AI_OFFLINE_NICE: Type.Integer({ default: 10, minimum: 0, maximum: 19 }),
});
export type AiConfig = Static<typeof AiConfigSchema>;
