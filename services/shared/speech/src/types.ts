import type { Readable } from 'node:stream';

/**
 * One spoken line: seconds from the start, the speaker's number (1-based) and the words; and
 * when it ends, where the provider says (subtitles are cut to its times, to the millisecond).
 */
export interface SpeechLine {
  seconds: number;
  end?: number;
  speaker: number;
  text: string;
}

export interface SpeechResult {
  durationSeconds: number;
  lines: SpeechLine[];
}

export interface TranscribeRequest {
  /** Opens the recording; not called when a provider job is resumed. */
  openAudio(): Promise<Readable>;
  /** Bytes of the recording. */
  size: number;
  /** Its MIME type, from the sniffed format. */
  contentType?: string;
  /** A provider job started by an earlier attempt (AssemblyAI): poll it instead of uploading again. */
  resumeJobId?: string | null;
  /** Called once the provider has accepted the job, before waiting for it. */
  onJobId?(jobId: string): Promise<void>;
  /** Names the recording may contain (the campaign's vocabulary), for providers that take a hint. */
  prompt?: string;
  /** Cancels the work (the worker is stopping). */
  signal?: AbortSignal;
}

export interface SpeechProvider {
  readonly name: 'deepgram' | 'assemblyai' | 'openai';
  transcribe(request: TranscribeRequest): Promise<SpeechResult>;
}

/**
 * A provider failure with a message fit for the user and whether trying again may help:
 * rate limits, server errors and timeouts may pass; a refused key or a bad file will not.
 */
export class SpeechError extends Error {
  override readonly name = 'SpeechError';
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** 429, 5xx, no status at all (network, timeout) may pass; other 4xx will not. */
export const retryableStatus = (status: number | undefined): boolean =>
  status === undefined || status === 408 || status === 429 || status >= 500;

export function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('Transcription was cancelled');
}
