import OpenAI from 'openai';
import type { AiConfig } from '../config.ts';
import { AiUnavailableError, type ChatMessage } from '../engine.ts';

/**
 * The low-level calls to an OpenAI-compatible chat completions endpoint. Retries with backoff
 * on 429, 408/409 and 5xx (and on timeouts) are the SDK's: `maxRetries` comes from
 * OPENAI_MAX_RETRIES and is never turned off by a caller. Every failure that is left after the
 * retries becomes an AiUnavailableError whose message says what went wrong.
 */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  /** Ask for a JSON object (response_format json_object); the messages must mention JSON. */
  json?: boolean;
  /** Ask for output matching a JSON schema (response_format json_schema, strict). */
  schema?: { name: string; schema: unknown };
  /** The answer's token limit, as the server names it (max_tokens or max_completion_tokens). */
  outputLimit?: { max_tokens?: number; max_completion_tokens?: number };
  signal?: AbortSignal;
}

function responseFormat(req: ChatRequest) {
  if (req.schema) {
    return {
      response_format: {
        type: 'json_schema' as const,
        json_schema: {
          name: req.schema.name,
          schema: req.schema.schema as Record<string, unknown>,
          strict: true,
        },
      },
    };
  }
  return req.json ? { response_format: { type: 'json_object' as const } } : {};
}

export interface ChatResult {
  text: string;
  inputTokens: number;
  outputTokens: number;
  /** False when the server sent no usage and the token counts are estimates. */
  usageReported: boolean;
}

/** A rough token count (about 4 characters per token) for text the server did not count. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The estimated prompt tokens of a request: its messages plus a few tokens of framing each. */
export function estimateMessagesTokens(messages: ChatMessage[]): number {
  return messages.reduce((n, m) => n + estimateTokens(m.content) + 4, 0);
}

export function createOpenAiClient(
  config: Pick<AiConfig, 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'OPENAI_TIMEOUT_MS' | 'OPENAI_MAX_RETRIES'>,
): OpenAI {
  return new OpenAI({
    // Local servers (Ollama, vLLM) need no key, but the SDK refuses to start without one.
    apiKey: config.OPENAI_API_KEY || 'no-key',
    baseURL: config.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
    timeout: config.OPENAI_TIMEOUT_MS,
    maxRetries: config.OPENAI_MAX_RETRIES,
  });
}

/** One non-streaming chat completion. */
export async function completeChat(client: OpenAI, req: ChatRequest): Promise<ChatResult> {
  try {
    const completion = await client.chat.completions.create(
      {
        model: req.model,
        messages: req.messages,
        ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
        ...responseFormat(req),
        ...req.outputLimit,
      },
      { signal: req.signal },
    );
    const text = completion.choices[0]?.message?.content ?? '';
    return withUsage(req, text, completion.usage);
  } catch (err) {
    throw unavailable(client, err);
  }
}

/**
 * A streamed chat completion: yields the text deltas as they arrive and returns the whole
 * text with its token usage (asked for with stream_options.include_usage; estimated when the
 * server sends none).
 */
export async function* streamChat(client: OpenAI, req: ChatRequest): AsyncGenerator<string, ChatResult> {
  let text = '';
  let usage: OpenAI.CompletionUsage | null | undefined;
  try {
    const stream = await client.chat.completions.create(
      {
        model: req.model,
        messages: req.messages,
        stream: true,
        stream_options: { include_usage: true },
        ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
        ...responseFormat(req),
      },
      { signal: req.signal },
    );
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const delta = chunk.choices[0]?.delta?.content;
      if (delta) {
        text += delta;
        yield delta;
      }
    }
  } catch (err) {
    throw unavailable(client, err);
  }
  return withUsage(req, text, usage);
}

function withUsage(
  req: ChatRequest,
  text: string,
  usage: OpenAI.CompletionUsage | null | undefined,
): ChatResult {
  if (usage && Number.isFinite(usage.prompt_tokens) && Number.isFinite(usage.completion_tokens)) {
    return {
      text,
      inputTokens: usage.prompt_tokens,
      outputTokens: usage.completion_tokens,
      usageReported: true,
    };
  }
  return {
    text,
    inputTokens: estimateMessagesTokens(req.messages),
    outputTokens: estimateTokens(text),
    usageReported: false,
  };
}

/** What a failure left after the SDK's retries means, in words an operator can act on. */
function unavailable(client: OpenAI, err: unknown): AiUnavailableError {
  if (err instanceof AiUnavailableError) return err;
  const where = client.baseURL;
  let message: string;
  if (err instanceof OpenAI.APIUserAbortError) {
    message = 'The AI request was cancelled.';
  } else if (err instanceof OpenAI.APIConnectionTimeoutError) {
    message = `The AI model at ${where} did not answer within ${client.timeout} ms (after ${client.maxRetries} retries).`;
  } else if (err instanceof OpenAI.APIConnectionError) {
    message = `Could not reach the AI model at ${where} (after ${client.maxRetries} retries).`;
  } else if (err instanceof OpenAI.AuthenticationError || err instanceof OpenAI.PermissionDeniedError) {
    message = `The AI model at ${where} refused the credentials (HTTP ${err.status}); check OPENAI_API_KEY.`;
  } else if (err instanceof OpenAI.RateLimitError) {
    message = `The AI model at ${where} is rate limiting requests (HTTP 429, after ${client.maxRetries} retries).`;
  } else if (err instanceof OpenAI.APIError && err.status !== undefined) {
    message =
      err.status >= 500
        ? `The AI model at ${where} failed (HTTP ${err.status}, after ${client.maxRetries} retries).`
        : `The AI model at ${where} rejected the request (HTTP ${err.status}): ${err.message}`;
  } else {
    message = `The AI request failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  return new AiUnavailableError(message, { cause: err });
}
