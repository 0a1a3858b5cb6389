import type { Bus, Coordination, Logger } from '@chronicler/kit';
import type { AiConfig } from './config.ts';
import type { AiEngine } from './engine.ts';
import { OfflineEngine } from './offline/engine.ts';
import { OpenAiEngine } from './openai/engine.ts';
import { zeroAiMetrics } from './usage.ts';

/** What an engine needs from its service: usage records go on the bus, rate limits in coord. */
export interface AiDeps {
  bus: Bus;
  coord: Coordination;
  logger: Logger;
}

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
