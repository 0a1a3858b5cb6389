import { Type, type Static } from '@sinclair/typebox';
import { redactUrl } from '@chronicler/kit';

const url = (description: string) => Type.String({ pattern: '^[a-z][a-z0-9+.-]*://', description });

/**
 * The speech-to-text provider of uploaded recordings and of the bot, read from the environment
 * like every service config (keys are the variable names). With no key and no transcription
 * server set there is no provider and audio upload is refused with a message that says so.
 */
export const SpeechConfigSchema = Type.Object({
  /**
   * Which provider to use; unset: whichever is set, Deepgram first, then AssemblyAI, then an
   * OpenAI-compatible transcription server. Named explicitly, its key (or URL) is required.
   */
  SPEECH_PROVIDER: Type.Optional(
    Type.Union([Type.Literal('deepgram'), Type.Literal('assemblyai'), Type.Literal('openai')]),
  ),
  DEEPGRAM_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  /** Base URL override (tests point it at tests/peers/deepgram.ts). */
  DEEPGRAM_API_URL: Type.Optional(url('Deepgram API base URL, e.g. https://api.deepgram.com')),
  DEEPGRAM_MODEL: Type.String({ default: 'nova-3', minLength: 1 }),
  ASSEMBLYAI_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  ASSEMBLYAI_BASE_URL: Type.Optional(url('AssemblyAI API base URL, e.g. https://api.assemblyai.com')),
  /** How often a running AssemblyAI job is polled. */
  ASSEMBLYAI_POLL_INTERVAL_MS: Type.Integer({ default: 3000, minimum: 10 }),
  /**
   * Any OpenAI-compatible transcription server (`POST <base>/audio/transcriptions`): OpenAI
   * itself, or a local faster-whisper, whisper.cpp, LocalAI or vLLM. Separate from the AI's
   * OPENAI_* settings because the speech model is usually served by another server.
   */
  TRANSCRIPTION_BASE_URL: Type.Optional(url('Transcription server base URL, e.g. http://localhost:8000/v1')),
  /** Optional: local servers usually take none. */
  TRANSCRIPTION_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  /** Optional with defaults, as the live limits below, so configs built in code stay valid. */
  TRANSCRIPTION_MODEL: Type.Optional(Type.String({ default: 'whisper-1', minLength: 1 })),
  /**
   * The server's upload limit (OpenAI's is 25 MB): a longer recording is split at its quietest
   * moments into WAV pieces below it, and the pieces' lines are stitched with their times.
   */
  TRANSCRIPTION_MAX_UPLOAD_BYTES: Type.Optional(
    Type.Integer({ default: 25 * 1000 * 1000, minimum: 64 * 1024 }),
  ),
  /** Requests one process sends the transcription server at once (live utterances of all speakers). */
  TRANSCRIPTION_CONCURRENCY: Type.Optional(Type.Integer({ default: 4, minimum: 1 })),
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
  /** Speakers transcribed live at once through the transcription server, across all replicas. */
  TRANSCRIPTION_MAX_STREAMS: Type.Optional(Type.Integer({ default: 100, minimum: 1 })),
  /** KeepAlive after this long without audio (Deepgram closes a stream silent for 10 s). */
  SPEECH_LIVE_KEEPALIVE_MS: Type.Optional(Type.Integer({ default: 4_000, minimum: 10, maximum: 9_000 })),
  /** Connection attempts per outage before a live stream gives up (250 ms doubling to 5 s between them). */
  SPEECH_LIVE_RECONNECT_ATTEMPTS: Type.Optional(Type.Integer({ default: 6, minimum: 1 })),
});
export type SpeechConfig = Static<typeof SpeechConfigSchema>;

export type SpeechProviderName = 'deepgram' | 'assemblyai' | 'openai';

/** The provider in use, or null when none is configured. */
export function speechProviderName(config: Partial<SpeechConfig>): SpeechProviderName | null {
  if (config.SPEECH_PROVIDER === 'deepgram') return config.DEEPGRAM_API_KEY ? 'deepgram' : null;
  if (config.SPEECH_PROVIDER === 'assemblyai') return config.ASSEMBLYAI_API_KEY ? 'assemblyai' : null;
  if (config.SPEECH_PROVIDER === 'openai') return config.TRANSCRIPTION_BASE_URL ? 'openai' : null;
  if (config.DEEPGRAM_API_KEY) return 'deepgram';
  if (config.ASSEMBLYAI_API_KEY) return 'assemblyai';
  if (config.TRANSCRIPTION_BASE_URL) return 'openai';
  return null;
}

/** What each provider needs set, by variable. */
const REQUIRED: Record<SpeechProviderName, keyof SpeechConfig> = {
  deepgram: 'DEEPGRAM_API_KEY',
  assemblyai: 'ASSEMBLYAI_API_KEY',
  openai: 'TRANSCRIPTION_BASE_URL',
};

/**
 * A provider named in SPEECH_PROVIDER without what it needs is a mistake to stop the start
 * for (silently transcribing nothing would hide it): the problem names the missing variable.
 */
export function speechConfigProblems(config: Partial<SpeechConfig>): { variable: string; message: string }[] {
  const named = config.SPEECH_PROVIDER;
  if (!named) return [];
  const variable = REQUIRED[named];
  if (config[variable]) return [];
  return [{ variable, message: `is required by SPEECH_PROVIDER=${named} but not set` }];
}

/**
 * The start-up log line about speech-to-text: the provider in use (and for a transcription
 * server, where and which model), or that uploads and the bot's transcription are off and
 * which variables turn them on.
 */
export function describeSpeech(config: Partial<SpeechConfig>): string {
  const name = speechProviderName(config);
  if (name === 'openai') {
    return `speech-to-text: openai-compatible server ${redactUrl(config.TRANSCRIPTION_BASE_URL ?? '')} (model ${config.TRANSCRIPTION_MODEL ?? 'whisper-1'}) transcribes uploads and the bot`;
  }
  if (name) return `speech-to-text: ${name} transcribes uploads and the bot`;
  return 'speech-to-text is off: audio uploads and browser recordings are kept untranscribed and the bot records without transcribing; set TRANSCRIPTION_BASE_URL (any OpenAI-compatible server, e.g. a local Whisper), DEEPGRAM_API_KEY or ASSEMBLYAI_API_KEY to turn it on';
}
