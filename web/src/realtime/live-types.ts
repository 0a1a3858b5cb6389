// The live transcript's public types: the snapshot a viewer renders, the store behind it, and
// the part of a socket.io socket the store drives.
import type { PrepUpdate, LiveLine, SessionEndEvent, SpeakerInfo } from '@chronicler/contracts';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'offline';

/** An utterance still being spoken: shown until its final arrives, or for 30 s at most. */
export interface LiveInterim {
  /** utterance_id + speaker: a later interim with the same key replaces this one. */
  key: string;
  utterance_id: string;
  text: string;
  speaker_tag: number | string;
  speaker_info?: SpeakerInfo;
  start_seconds: number;
  timestamp: string;
}

export interface LiveSnapshot {
  status: LiveStatus;
  /** Final lines ordered by seq; those at or below `contentSeq` are already inside `content`. */
  lines: readonly LiveLine[];
  interims: readonly LiveInterim[];
  sessionStartTime: string | null;
  /**
   * The whole final text as the server last sent it ('initial' without lines, or
   * 'content_update'), covering every line up to `contentSeq`; null when none was sent.
   */
  content: string | null;
  contentSeq: number;
}

/** The part of socket.io-client's Socket the store uses; a test drives it with a double. */
export interface LiveSocketLike {
  /** False once the client will not try again by itself (refused by the server, or closed). */
  readonly active: boolean;
  on(event: string, listener: (...args: never[]) => void): unknown;
  emit(event: string, ...args: unknown[]): unknown;
  disconnect(): unknown;
  /** The Manager: reconnect_failed says the 5 attempts are spent. */
  readonly io: { on(event: string, listener: (...args: never[]) => void): unknown };
}

export interface LiveTranscriptStore {
  getSnapshot(): LiveSnapshot;
  subscribe(listener: () => void): () => void;
  /** Called once when the session has ended (after any missing lines arrived). */
  onEnd(listener: (event: SessionEndEvent) => void): () => void;
  /** Prepared items the session just ticked (prep_update on the session's room). */
  onPrepUpdate(listener: (update: PrepUpdate) => void): () => void;
  /** The page leaves: close without marking the session ended. */
  close(): void;
}
