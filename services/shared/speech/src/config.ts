import { Type, type Static } from '@sinclair/typebox';

const url = (description: string) => Type.String({ pattern: '^[a-z][a-z0-9+.-]*://', description });

/**
 * The speech-to-text provider of uploaded recordings, read from the environment like every
 * service config (keys are the variable names). With neither key set there is no provider
 * and audio upload is refused with a message that says so.
 */
export const SpeechConfigSchema = Type.Object({
  /** Which provider to use; unset: whichever key is set, Deepgram first. */
  SPEECH_PROVIDER: Type.Optional(Type.Union([Type.Literal('deepgram'), Type.Literal('assemblyai')])),
  DEEPGRAM_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  /** Base URL override (tests point it at tests/peers/deepgram.ts). */
  DEEPGRAM_API_URL: Type.Optional(url('Deepgram API base URL, e.g. https://api.deepgram.com')),
  DEEPGRAM_MODEL: Type.String({ default: 'nova-3', minLength: 1 }),
  ASSEMBLYAI_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  ASSEMBLYAI_BASE_URL: Type.Optional(url('AssemblyAI API base URL, e.g. https://api.assemblyai.com')),
  /** How often a running AssemblyAI job is polled. */
  ASSEMBLYAI_POLL_INTERVAL_MS: Type.Integer({ default: 3000, minimum: 10 }),
  /**
   * Limit of one HTTP call to the provider. A Deepgram call uploads the whole recording and
   * waits for its transcript, so the default leaves room for a 500 MB file.
   */
  SPEECH_HTTP_TIMEOUT_MS: Type.Integer({ default: 900_000, minimum: 100 }),
  /**
   * Live streams: the provider is the one chosen above. Deepgram's socket lives under
   * DEEPGRAM_API_URL (the SDK turns http(s) into ws(s)); AssemblyAI streams from its own host.
   */
  ASSEMBLYAI_STREAMING_URL: Type.Optional(
    Type.String({
      pattern: '^wss://',
      description: 'AssemblyAI streaming URL, e.g. wss://streaming.assemblyai.com/v3/ws',
    }),
  ),
  /**
   * Concurrent live streams per provider across all replicas (Deepgram allows 50 per project).
   * Optional with defaults (filled by the config reader, and by the code when absent) so that
   * configs built in code before live streaming existed stay valid.
   */
  DEEPGRAM_MAX_STREAMS: Type.Optional(Type.Integer({ default: 50, minimum: 1 })),
  ASSEMBLYAI_MAX_STREAMS: Type.Optional(Type.Integer({ default: 100, minimum: 1 })),
  /** KeepAlive after this long without audio (Deepgram closes a stream silent for 10 s). */
  SPEECH_LIVE_KEEPALIVE_MS: Type.Optional(Type.Integer({ default: 4_000, minimum: 10, maximum: 9_000 })),
  /** Connection attempts per outage before a live stream gives up (250 ms doubling to 5 s between them). */
  SPEECH_LIVE_RECONNECT_ATTEMPTS: Type.Optional(Type.Integer({ default: 6, minimum: 1 })),
});
export type SpeechConfig = Static<typeof SpeechConfigSchema>;

export type SpeechProviderName = 'deepgram' | 'assemblyai';

/** The provider in use, or null when none is configured. */
export function speechProviderName(config: Partial<SpeechConfig>): SpeechProviderName | null {
  if (config.SPEECH_PROVIDER === 'deepgram') return config.DEEPGRAM_API_KEY ? 'deepgram' : null;
  if (config.SPEECH_PROVIDER === 'assemblyai') return config.ASSEMBLYAI_API_KEY ? 'assemblyai' : null;
  if (config.DEEPGRAM_API_KEY) return 'deepgram';
  if (config.ASSEMBLYAI_API_KEY) return 'assemblyai';
  return null;
}
