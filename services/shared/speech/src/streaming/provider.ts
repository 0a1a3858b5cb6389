import { speechProviderName, type SpeechConfig } from '../config.ts';
import { assemblyAiLiveProvider } from './assemblyai-live.ts';
import { deepgramLiveProvider } from './deepgram-live.ts';
import { openAiLiveProvider } from './openai-live.ts';
import { DEFAULT_LIVE_TUNING } from './live-connection.ts';
import type { StreamingProvider, StreamingProviderName } from './types.ts';

/** The configured provider's live adapter (the same choice as for uploads), or null when none is configured. */
export function createStreamingProvider(config: SpeechConfig): StreamingProvider | null {
  const name = speechProviderName(config);
  const tuning = {
    keepAliveMs: config.SPEECH_LIVE_KEEPALIVE_MS ?? DEFAULT_LIVE_TUNING.keepAliveMs,
    reconnectAttempts: config.SPEECH_LIVE_RECONNECT_ATTEMPTS ?? DEFAULT_LIVE_TUNING.reconnectAttempts,
  };
  if (name === 'deepgram') {
    return deepgramLiveProvider({
      apiKey: config.DEEPGRAM_API_KEY!,
      ...(config.DEEPGRAM_API_URL ? { baseUrl: config.DEEPGRAM_API_URL } : {}),
      model: config.DEEPGRAM_MODEL,
      tuning,
    });
  }
  if (name === 'assemblyai') {
    return assemblyAiLiveProvider({
      apiKey: config.ASSEMBLYAI_API_KEY!,
      ...(config.ASSEMBLYAI_STREAMING_URL ? { websocketBaseUrl: config.ASSEMBLYAI_STREAMING_URL } : {}),
      // AssemblyAI needs no KeepAlive (see assemblyai-live.ts).
      tuning: { reconnectAttempts: tuning.reconnectAttempts },
    });
  }
  if (name === 'openai') {
    return openAiLiveProvider({
      baseUrl: config.TRANSCRIPTION_BASE_URL!,
      ...(config.TRANSCRIPTION_API_KEY ? { apiKey: config.TRANSCRIPTION_API_KEY } : {}),
      model: config.TRANSCRIPTION_MODEL ?? 'whisper-1',
      // An utterance is short: a server that takes minutes over it is not coming back.
      timeoutMs: Math.min(config.SPEECH_HTTP_TIMEOUT_MS, 120_000),
      // As many tries per utterance as a socket provider has per outage.
      retries: tuning.reconnectAttempts - 1,
      concurrency: config.TRANSCRIPTION_CONCURRENCY ?? 4,
    });
  }
  return null;
}

/** Per-provider stream limits for createStreamGate, from the config. */
export function streamLimits(config: SpeechConfig): Record<StreamingProviderName, number> {
  return {
    deepgram: config.DEEPGRAM_MAX_STREAMS ?? 50,
    assemblyai: config.ASSEMBLYAI_MAX_STREAMS ?? 100,
    openai: config.TRANSCRIPTION_MAX_STREAMS ?? 100,
  };
}
