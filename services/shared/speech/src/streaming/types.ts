/**
 * Streaming speech-to-text: one stream per speaker. PCM goes in (16-bit little-endian,
 * mono, at `sampleRate`), interim and final utterances come out, each with an id that
 * stays the same from its first interim to its final.
 */

export type StreamingProviderName = 'deepgram' | 'assemblyai' | 'openai';

export interface StreamingUtterance {
  /** Stable from the first interim to the final; unique within the stream. */
  utteranceId: string;
  text: string;
  isFinal: boolean;
  /** Seconds from the start of this stream's audio (the caller adds the speaker's offset). */
  startSeconds: number;
  endSeconds: number;
  /** Provider confidence 0..1 when it gives one. */
  confidence?: number;
}

export interface StreamingOptions {
  /** PCM sample rate of what `write` receives: 16000 by default. */
  sampleRate?: number;
  /** Words the provider should favour: character, NPC and place names of the campaign. */
  keyterms?: string[];
  /** Language hint, e.g. 'en'. */
  language?: string;
  /** Names this stream in logs and ids (e.g. `<transcriptId>:<userId>`). */
  label?: string;
}

export interface StreamingEvents {
  onUtterance(utterance: StreamingUtterance): void;
  /**
   * The stream is over for good: `error` is set when the provider stayed down (after the
   * retries) or refused us (bad key); its message is fit to show the user.
   */
  onClose(info: { error?: StreamingError }): void;
  /** Optional: every reconnect attempt, for logs and metrics. */
  onReconnect?(info: { attempt: number; reason: string }): void;
}

export interface SpeechStream {
  readonly provider: StreamingProviderName;
  /** Queues PCM; never throws while the stream is open (audio is buffered across reconnects). */
  write(pcm: Buffer): void;
  /**
   * The speaker stopped (Discord sends no frames in silence, so the provider cannot hear the
   * pause): ask for the pending words as a final now (Deepgram Finalize, AssemblyAI
   * ForceEndpoint). The stream stays open; KeepAlive holds it through the silence.
   */
  flush(): void;
  /** Flushes what was said (Deepgram Finalize / AssemblyAI ForceEndpoint), then closes. Resolves once closed. */
  finish(): Promise<void>;
  /** Closes at once without waiting for finals (the session is being torn down). */
  abort(): void;
}

export interface StreamingProvider {
  readonly name: StreamingProviderName;
  open(options: StreamingOptions, events: StreamingEvents): Promise<SpeechStream>;
}

/** A streaming failure: `retryable` false for a refused key or a bad request. */
export class StreamingError extends Error {
  override readonly name = 'StreamingError';
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly code?: number,
  ) {
    super(message);
  }
}

/**
 * Concurrent streams per provider, across every replica (Redis in the cluster, memory in
 * embedded mode). `acquire` resolves null when the limit is reached.
 */
export interface StreamGate {
  acquire(provider: StreamingProviderName): Promise<StreamLease | null>;
  /** Streams open now, per provider (for the admin dashboard). */
  counts(): Promise<Record<StreamingProviderName, number>>;
}

export interface StreamLease {
  release(): Promise<void>;
}
