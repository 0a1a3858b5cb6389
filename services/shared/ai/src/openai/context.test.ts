import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAiPeer, type OpenAiPeer } from '../../../../../tests/peers/openai.ts';
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

  it('falls back to a safe context when the server tells nothing', async () => {
    peer.modelInfo = { flavour: 'openai', contextTokens: 128_000, numCtx: null, loadedContext: null };
    const context = await discover();
    expect(context.tokens).toBe(FALLBACK_CONTEXT_TOKENS);
    expect(context.advice).toContain('OPENAI_CONTEXT_TOKENS');
  });
});
