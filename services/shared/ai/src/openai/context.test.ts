import { createLogger, MemoryCoordination, type Bus } from '@chronicler/kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAiPeer, type OpenAiPeer } from '../../../../../tests/peers/openai.ts';
import type { AiConfig } from '../config.ts';
import { startAiEngine } from '../create.ts';
import { createOpenAiClient } from './client.ts';
import { discoverContext, FALLBACK_CONTEXT_TOKENS } from './context.ts';

describe('the model context, learnt from the server', () => {
  let peer: OpenAiPeer;
  beforeAll(async () => {
    peer = await startOpenAiPeer();
  });
  afterAll(async () => {
    await peer?.close();
  });
  beforeEach(() => {
    peer.modelInfo = { flavour: 'vllm', contextTokens: 6_000, numCtx: null, loadedContext: null };
  });
  const discover = (override?: number) =>
    discoverContext(
      createOpenAiClient({
        OPENAI_BASE_URL: peer.url,
        OPENAI_API_KEY: peer.apiKey,
        OPENAI_TIMEOUT_MS: 5_000,
        OPENAI_MAX_RETRIES: 0,
      }),
      'peer-model',
      override,
    );

  it("reads vLLM's max_model_len from GET /v1/models", async () => {
    expect(await discover()).toEqual({ tokens: 6_000, source: 'GET /v1/models (max_model_len)' });
  });

  it('lets OPENAI_CONTEXT_TOKENS override what the server says', async () => {
    expect(await discover(32_000)).toEqual({ tokens: 32_000, source: 'OPENAI_CONTEXT_TOKENS' });
  });

  it("sizes to Ollama's default window, below the model's own, and says how to raise it", async () => {
    peer.modelInfo = { flavour: 'ollama', contextTokens: 131_072, numCtx: null, loadedContext: null };
    const context = await discover();
    expect(context.tokens).toBe(4_096);
    expect(context.source).toContain("Ollama's default window; the model supports 131072");
    expect(context.advice).toContain('OLLAMA_CONTEXT_LENGTH=32768');
    expect(context.advice).toContain('OPENAI_CONTEXT_TOKENS=32768');
  });

  it("takes Ollama's num_ctx, or the window of the loaded model, whichever the server runs with", async () => {
    peer.modelInfo = { flavour: 'ollama', contextTokens: 131_072, numCtx: 8_192, loadedContext: null };
    expect((await discover()).tokens).toBe(8_192);
    peer.modelInfo = { flavour: 'ollama', contextTokens: 131_072, numCtx: 8_192, loadedContext: 16_384 };
    expect(await discover()).toMatchObject({
      tokens: 16_384,
      source: expect.stringContaining('GET /api/ps'),
    });
    // Never more than the model was trained for.
    peer.modelInfo = { flavour: 'ollama', contextTokens: 2_048, numCtx: 8_192, loadedContext: null };
    expect((await discover()).tokens).toBe(2_048);
  });

  it("knows OpenAI's own models, whose /v1/models lists no context", async () => {
    peer.modelInfo = { flavour: 'openai', contextTokens: 128_000, numCtx: null, loadedContext: null };
    peer.models.add('gpt-4o-mini');
    const context = await discoverContext(
      createOpenAiClient({
        OPENAI_BASE_URL: peer.url,
        OPENAI_API_KEY: peer.apiKey,
        OPENAI_TIMEOUT_MS: 5_000,
        OPENAI_MAX_RETRIES: 0,
      }),
      'gpt-4o-mini',
      undefined,
    );
    expect(context).toEqual({
      tokens: 128_000,
      source: "gpt-tokenizer's table of OpenAI models (gpt-4o-mini)",
    });
  });

  it('falls back to a safe context when the server tells nothing', async () => {
    peer.modelInfo = { flavour: 'openai', contextTokens: 128_000, numCtx: null, loadedContext: null };
    const context = await discover();
    expect(context.tokens).toBe(FALLBACK_CONTEXT_TOKENS);
    expect(context.advice).toContain('OPENAI_CONTEXT_TOKENS');
  });

  it('logs at start the model, the context used and where it came from, and how to raise an Ollama window', async () => {
    peer.modelInfo = { flavour: 'ollama', contextTokens: 131_072, numCtx: null, loadedContext: null };
    const lines: { level: string; msg: string; contextTokens?: number }[] = [];
    const logger = createLogger('ai-start', {
      destination: { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) },
    });
    const config = {
      OPENAI_BASE_URL: peer.url,
      OPENAI_API_KEY: peer.apiKey,
      OPENAI_MODEL: 'peer-model',
      OPENAI_TIMEOUT_MS: 5_000,
      OPENAI_MAX_RETRIES: 0,
      AI_PRICE_INPUT_PER_MILLION_USD: 0,
      AI_PRICE_OUTPUT_PER_MILLION_USD: 0,
      AI_RATE_LIMIT_PER_MINUTE: 10,
      AI_OFFLINE_THREADS: 0,
      AI_OFFLINE_NICE: 0,
    } satisfies AiConfig;
    const coord = new MemoryCoordination();
    await startAiEngine(config, { bus: {} as Bus, coord, logger });
    await coord.close();
    expect(lines[0]).toMatchObject({
      level: 'info',
      contextTokens: 4_096,
      msg: expect.stringMatching(/^AI model peer-model: requests sized to a 4096-token context, from Ollama/),
    });
    expect(lines[1]).toMatchObject({
      level: 'warn',
      msg: expect.stringContaining('OLLAMA_CONTEXT_LENGTH=32768'),
    });
  });
});
