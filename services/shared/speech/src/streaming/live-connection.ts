import type { StreamingError } from './types.ts';

/**
 * The pieces a provider adapter gives the resilient stream (resilient.ts): its tuning, and one
 * provider connection with the sink it reports results and losses to.
 */

/** How a live stream rides out provider trouble; every field has a production default. */
export interface LiveTuning {
  /**
   * Send a KeepAlive after this long without audio (Deepgram closes a stream that hears
   * nothing for 10 s; Discord sends no frames while nobody speaks). null: never.
   */
  keepAliveMs: number | null;
  /** Connection attempts per outage before the stream gives up. */
  reconnectAttempts: number;
  /** Wait before the second attempt; doubles per attempt up to maxReconnectDelayMs. */
  reconnectBaseDelayMs: number;
  maxReconnectDelayMs: number;
  /** Audio kept since the last final, to send again after a reconnect. */
  replaySeconds: number;
  /** How long finish() waits for the provider's last finals and close. */
  finishTimeoutMs: number;
}

export const DEFAULT_LIVE_TUNING: LiveTuning = {
  keepAliveMs: 4_000,
  reconnectAttempts: 6,
  reconnectBaseDelayMs: 250,
  maxReconnectDelayMs: 5_000,
  replaySeconds: 30,
  finishTimeoutMs: 10_000,
};

/** One recognition result as a provider connection reports it, in seconds of that connection's audio. */
export interface ConnectionResult {
  /** The provider's identity of the segment on this connection (Deepgram: a counter; AssemblyAI: turn_order). */
  key: string | number;
  text: string;
  isFinal: boolean;
  start: number;
  end: number;
  confidence?: number;
  /** For a final: audio up to here is accounted for and need not be sent again after a reconnect. */
  coveredUntil?: number;
}

export interface ConnectionSink {
  result(result: ConnectionResult): void;
  /** The connection ended without being asked to (dropped, provider error, idle close). */
  lost(error: StreamingError): void;
}

/** One provider socket. The stream owns reconnects; a connection never reconnects by itself. */
export interface LiveConnection {
  send(pcm: Buffer): void;
  /** Ask for the pending words as a final now. */
  flush(): void;
  keepAlive(): void;
  /** Flush, close, and resolve once the provider has sent its last results and closed. */
  finish(): Promise<void>;
  /** Close now; no more results are wanted. */
  abort(): void;
}

/** Opens one connection; rejects with a StreamingError that says whether trying again may help. */
export type Connect = (sink: ConnectionSink) => Promise<LiveConnection>;
