import { assemblyAiProvider } from './assemblyai.ts';
import { speechProviderName, type SpeechConfig } from './config.ts';
import { deepgramProvider } from './deepgram.ts';
import { openAiProvider } from './openai.ts';
import type { SpeechProvider } from './types.ts';

/** The configured provider's adapter, or null when none is configured. */
export function createSpeechProvider(config: SpeechConfig): SpeechProvider | null {
  const name = speechProviderName(config);
  if (name === 'deepgram') {
    return deepgramProvider({
      apiKey: config.DEEPGRAM_API_KEY!,
      ...(config.DEEPGRAM_API_URL ? { baseUrl: config.DEEPGRAM_API_URL } : {}),
      model: config.DEEPGRAM_MODEL,
      timeoutMs: config.SPEECH_HTTP_TIMEOUT_MS,
    });
  }
  if (name === 'assemblyai') {
    return assemblyAiProvider({
      apiKey: config.ASSEMBLYAI_API_KEY!,
      ...(config.ASSEMBLYAI_BASE_URL ? { baseUrl: config.ASSEMBLYAI_BASE_URL } : {}),
      pollIntervalMs: config.ASSEMBLYAI_POLL_INTERVAL_MS,
      timeoutMs: config.SPEECH_HTTP_TIMEOUT_MS,
    });
  }
  if (name === 'openai') {
    return openAiProvider({
      baseUrl: config.TRANSCRIPTION_BASE_URL!,
      ...(config.TRANSCRIPTION_API_KEY ? { apiKey: config.TRANSCRIPTION_API_KEY } : {}),
      model: config.TRANSCRIPTION_MODEL ?? 'whisper-1',
      maxUploadBytes: config.TRANSCRIPTION_MAX_UPLOAD_BYTES ?? 25_000_000,
      timeoutMs: config.SPEECH_HTTP_TIMEOUT_MS,
    });
  }
  return null;
}
