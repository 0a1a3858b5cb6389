import type { Bus, Logger } from '@chronicler/kit';
import type { StreamGate, StreamingProvider } from '@chronicler/speech';
import type { OutboxRetry } from './outbox.ts';
import type { LiveNotice } from './session-lines.ts';
import type { ResumePoint } from './resume.ts';
import type { StreamPolicy } from './speaker-stream.ts';

export interface LiveSessionOptions {
  bus: Bus;
  /** The transcript this session fills (a uuid). */
  transcriptId: string;
  ownerId: string;
  name?: string;
  groupId?: string;
  origin: 'discord' | 'replay' | 'table';
  /** null: nothing is transcribed; audio is still recorded when `recordingsDir` is set. */
  provider: StreamingProvider | null;
  /** Limits concurrent provider streams; null: no limit. */
  gate: StreamGate | null;
  /** Campaign names the provider should favour. */
  keyterms: string[];
  language?: string;
  /** Root of the recordings: `<dir>/<transcriptId>/<speakerKey>.ogg` and `finals.jsonl`. */
  recordingsDir: string | null;
  logger: Logger;
  /** Epoch milliseconds; a replay at N x speed passes a clock running N x fast. */
  now?: () => number;
  guildId?: string;
  channelId?: string;
  /** Longest wait for a stream's last finals when the session ends. Default 10 s. */
  finishTimeoutMs?: number;
  /** Silence longer than this between two pieces of audio starts a new run. Default 0.2 s. */
  gapSeconds?: number;
  /** How often queued audio is written to the recordings. Default 1000 ms. */
  recordingFlushMs?: number;
  /** Backoff of durable publishes while the bus does not take them. */
  retry?: OutboxRetry;
  /** Idle release, queueing and retry of provider streams (defaults: DEFAULT_STREAM_POLICY). */
  streamPolicy?: Partial<StreamPolicy>;
  /** Speakers transcribed at most; later ones are recorded only. null: no limit. */
  maxSpeakers?: number | null;
  /** How often idle streams are released and queued ones retried. Default 1000 ms. */
  tickMs?: number;
  /** Told when a speaker is queued, over the speaker limit, or has a gap. */
  onNotice?(notice: LiveNotice): void;
  /** Continues a session a previous process left (same transcript, clock and numbering): see resume.ts. */
  resume?: ResumePoint;
}
