import type { AiConfig } from './config.ts';
import type { AiDeps, AiEngine } from './engine.ts';
import { OfflineEngine } from './offline/engine.ts';
import { OpenAiEngine } from './openai/engine.ts';
import { zeroAiMetrics } from './usage.ts';

/** The OpenAI-compatible engine when a key or base URL is configured, else the offline one. */
export function createAiEngine(config: AiConfig, deps: AiDeps): AiEngine {
  if (config.OPENAI_API_KEY || config.OPENAI_BASE_URL) {
    if (!config.OPENAI_MODEL) {
      throw new Error('OPENAI_MODEL is required when OPENAI_API_KEY or OPENAI_BASE_URL is set');
    }
    const engine = new OpenAiEngine(config, deps);
    zeroAiMetrics(engine.model);
    return engine;
  }
  const engine = new OfflineEngine(config, deps);
  zeroAiMetrics(engine.model);
  return engine;
}

/** Where to read how to connect a model, for the messages that say it. */
export const CONNECT_MODEL_HINT =
  'To use a model, set OPENAI_BASE_URL (a local Ollama: http://localhost:11434/v1, or any OpenAI-compatible server) and OPENAI_MODEL; see the README, "Connecting an AI model".';

/**
 * The engine, started: a model engine has learnt its context and tokenizer, and the start-up
 * log names the model, the context used and where that number came from (with what to do for a
 * larger window when the server runs the model with less than it supports).
 */
export async function startAiEngine(config: AiConfig, deps: AiDeps): Promise<AiEngine> {
  const engine = createAiEngine(config, deps);
  if (engine instanceof OpenAiEngine) {
    const context = await engine.ready();
    deps.logger.info(
      {
        model: engine.model,
        contextTokens: context.tokens,
        contextSource: context.source,
        tokenizer: engine.counter.method,
      },
      `AI model ${engine.model}: requests sized to a ${context.tokens}-token context, from ${context.source}`,
    );
    if (context.advice) deps.logger.warn({ model: engine.model }, context.advice);
  } else {
    deps.logger.info(
      { model: engine.model },
      `No AI model configured: the built-in offline digest answers. ${CONNECT_MODEL_HINT}`,
    );
  }
  return engine;
}
