import { speechErrors, speechReconnects, speechStreamsOpen } from '@chronicler/kit';
import type {
  Connect,
  ConnectionResult,
  ConnectionSink,
  LiveConnection,
  LiveTuning,
} from './live-connection.ts';
import {
  StreamingError,
  type SpeechStream,
  type StreamingEvents,
  type StreamingOptions,
  type StreamingProviderName,
} from './types.ts';

interface Chunk {
  /** Byte position of this chunk in the stream's audio. */
  at: number;
  data: Buffer;
}

type State = 'connecting' | 'open' | 'waiting' | 'closed';

/**
 * A SpeechStream over a provider's connections: it keeps the audio that no final covers yet,
 * reconnects with exponential backoff when the provider drops or fails, sends that audio
 * again (plus what was written meanwhile), and keeps utterance ids and offsets continuous
 * across connections. Offsets count from the stream's first byte.
 */
class ResilientStream implements SpeechStream {
  readonly #bytesPerSecond: number;
  readonly #maxBufferedBytes: number;
  /** Audio from (about) the last final on, oldest first. */
  #chunks: Chunk[] = [];
  #bufferedBytes = 0;
  #writtenBytes = 0;
  /** Audio before this byte is covered by finals: a reconnect sends from here. */
  #ackedBytes = 0;
  /** Byte position where the current connection's time 0 lies. */
  #connBase = 0;
  #conn: LiveConnection | null = null;
  /** Tells results of the current connection from late ones of a replaced one. */
  #epoch = 0;
  #state: State = 'connecting';
  #failures = 0;
  #lastSendAt = performance.now();
  #keepAliveTimer: NodeJS.Timeout | null = null;
  #backoffTimer: NodeJS.Timeout | null = null;
  #wakeBackoff: (() => void) | null = null;
  #nextId = 1;
  /** Segment key on the current connection -> utterance id. */
  #ids = new Map<string | number, string>();
  /** An utterance left open by a lost connection: the next connection's first segment continues it. */
  #carriedId: string | null = null;
  #flushPending = false;
  #finishing: Promise<void> | null = null;
  #resolveFinish: (() => void) | null = null;
  #connectedAt = 0;
  #gotResult = false;

  constructor(
    readonly provider: StreamingProviderName,
    private readonly displayName: string,
    private readonly connect: Connect,
    private readonly tuning: LiveTuning,
    private readonly events: StreamingEvents,
    sampleRate: number,
    private readonly onFirstOutcome: (error: StreamingError | null) => void,
  ) {
    // Errors and reconnects start at zero for a provider in use, so "none" reads as 0, not as no data.
    speechErrors.inc({ provider }, 0);
    speechReconnects.inc({ provider }, 0);
    speechStreamsOpen.inc({ provider });
    this.#bytesPerSecond = sampleRate * 2;
    this.#maxBufferedBytes = Math.ceil(tuning.replaySeconds * this.#bytesPerSecond);
    if (tuning.keepAliveMs !== null) {
      const every = tuning.keepAliveMs;
      // Ticking at half the interval keeps the longest silence on the wire below 1.5x of it.
      this.#keepAliveTimer = setInterval(() => this.#keepAliveTick(every), Math.max(10, every / 2));
      this.#keepAliveTimer.unref();
    }
    void this.#run();
  }

  write(pcm: Buffer): void {
    if (this.#isClosed() || this.#finishing) return;
    if (pcm.length === 0) return;
    // Callers (the voice receiver) may reuse their buffers; the replay needs its own copy.
    const data = Buffer.from(pcm);
    this.#chunks.push({ at: this.#writtenBytes, data });
    this.#writtenBytes += data.length;
    this.#bufferedBytes += data.length;
    this.#trim();
    if (this.#state === 'open' && this.#conn) {
      this.#conn.send(data);
      this.#lastSendAt = performance.now();
    }
  }

  flush(): void {
    if (this.#isClosed()) return;
    if (this.#state === 'open' && this.#conn) this.#conn.flush();
    else this.#flushPending = true;
  }

  finish(): Promise<void> {
    if (this.#isClosed()) return Promise.resolve();
    if (this.#finishing) return this.#finishing;
    this.#finishing = new Promise<void>((resolve) => (this.#resolveFinish = resolve));
    const timer = setTimeout(() => {
      this.#end(
        new StreamingError(
          `${this.displayName} did not confirm the end of the stream in time; the last words may be missing`,
          true,
        ),
      );
    }, this.tuning.finishTimeoutMs);
    timer.unref();
    void this.#finishing.finally(() => clearTimeout(timer));
    // Waiting for a reconnect: the connect loop finishes the new connection (after the replay).
    if (this.#state === 'open' && this.#conn) this.#finishConnection(this.#conn, this.#epoch);
    return this.#finishing;
  }

  abort(): void {
    this.#end(undefined);
  }

  #finishConnection(conn: LiveConnection, epoch: number): void {
    conn.finish().then(
      () => {
        if (epoch === this.#epoch) this.#end(undefined);
      },
      () => {
        // A finish that failed is reported through the sink (lost) and retried by the loop.
      },
    );
  }

  #keepAliveTick(every: number): void {
    if (this.#state !== 'open' || !this.#conn) return;
    if (performance.now() - this.#lastSendAt < every) return;
    this.#conn.keepAlive();
    this.#lastSendAt = performance.now();
  }

  /** Drops audio that finals cover, and the oldest audio beyond the replay window. */
  #trim(): void {
    while (this.#chunks.length > 0) {
      const first = this.#chunks[0]!;
      const end = first.at + first.data.length;
      if (end <= this.#ackedBytes || this.#bufferedBytes - first.data.length >= this.#maxBufferedBytes) {
        this.#chunks.shift();
        this.#bufferedBytes -= first.data.length;
      } else break;
    }
  }

  /** Connects, sends what the provider has not confirmed, and reconnects after losses until closed. */
  async #run(): Promise<void> {
    let first = true;
    while (!this.#isClosed()) {
      this.#state = 'connecting';
      const epoch = ++this.#epoch;
      let conn: LiveConnection;
      try {
        conn = await this.connect(this.#sinkFor(epoch));
      } catch (err) {
        const error = asStreamingError(err, this.displayName);
        if (this.#isClosed()) return;
        speechErrors.inc({ provider: this.provider });
        if (first && !error.retryable) {
          this.#state = 'closed';
          this.#stopTimers();
          speechStreamsOpen.dec({ provider: this.provider });
          this.onFirstOutcome(error);
          return;
        }
        if (!error.retryable) {
          this.#end(error);
          return;
        }
        if (first) this.onFirstOutcome(null);
        first = false;
        if (!(await this.#backoff(error))) return;
        continue;
      }
      if (this.#isClosed()) {
        conn.abort();
        return;
      }
      if (first) this.onFirstOutcome(null);
      first = false;
      // Listen for the loss before sending anything: a send can fail and report it at once.
      const lostSignal = new Promise<StreamingError | null>((resolve) => (this.#onLost = resolve));
      this.#open(conn, epoch);
      const lost = await lostSignal;
      if (this.#isClosed() || lost === null) return;
      speechErrors.inc({ provider: this.provider });
      this.#conn = null;
      // A connection that worked for a while (or produced words) starts a fresh count of attempts.
      if (this.#gotResult || performance.now() - this.#connectedAt > 5_000) this.#failures = 0;
      if (!lost.retryable) {
        this.#end(lost);
        return;
      }
      if (!(await this.#backoff(lost))) return;
    }
  }

  #onLost: ((error: StreamingError | null) => void) | null = null;

  #sinkFor(epoch: number): ConnectionSink {
    return {
      result: (result) => {
        if (epoch !== this.#epoch || this.#isClosed()) return;
        this.#gotResult = true;
        this.#result(result);
      },
      lost: (error) => {
        if (epoch !== this.#epoch || this.#isClosed()) return;
        // Everything not covered by a final is sent again: the open utterances' ids carry over.
        const open = [...this.#ids.values()];
        this.#carriedId = this.#carriedId ?? open[0] ?? null;
        this.#ids.clear();
        this.#state = 'waiting';
        const wake = this.#onLost;
        this.#onLost = null;
        wake?.(error);
      },
    };
  }

  #open(conn: LiveConnection, epoch: number): void {
    this.#conn = conn;
    this.#state = 'open';
    this.#connectedAt = performance.now();
    this.#gotResult = false;
    // Replay from the end of the last final (or the oldest audio still kept).
    const from = Math.max(this.#ackedBytes, this.#chunks[0]?.at ?? this.#writtenBytes);
    this.#connBase = from;
    for (const chunk of this.#chunks) {
      const end = chunk.at + chunk.data.length;
      if (end <= from) continue;
      conn.send(chunk.at >= from ? chunk.data : chunk.data.subarray(from - chunk.at));
    }
    this.#lastSendAt = performance.now();
    if (this.#flushPending) {
      this.#flushPending = false;
      conn.flush();
    }
    if (this.#finishing) this.#finishConnection(conn, epoch);
  }

  /** Waits before the next attempt; false when the stream gave up (or was closed meanwhile). */
  async #backoff(error: StreamingError): Promise<boolean> {
    this.#failures++;
    if (this.#failures >= this.tuning.reconnectAttempts) {
      this.#end(
        new StreamingError(
          `Speech-to-text unavailable: ${this.displayName} did not answer after ${this.#failures} attempts (${error.message})`,
          true,
          error.code,
        ),
      );
      return false;
    }
    speechReconnects.inc({ provider: this.provider });
    this.events.onReconnect?.({ attempt: this.#failures, reason: error.message });
    this.#state = 'waiting';
    const delay = Math.min(
      this.tuning.maxReconnectDelayMs,
      this.tuning.reconnectBaseDelayMs * 2 ** (this.#failures - 1),
    );
    await new Promise<void>((resolve) => {
      this.#wakeBackoff = resolve;
      this.#backoffTimer = setTimeout(resolve, delay);
    });
    this.#wakeBackoff = null;
    this.#backoffTimer = null;
    return !this.#isClosed();
  }

  #result(r: ConnectionResult): void {
    const base = this.#connBase / this.#bytesPerSecond;
    let id = this.#ids.get(r.key);
    if (r.isFinal && r.coveredUntil !== undefined) {
      const covered = this.#connBase + alignedBytes(r.coveredUntil * this.#bytesPerSecond);
      if (covered > this.#ackedBytes) {
        this.#ackedBytes = Math.min(covered, this.#writtenBytes);
        this.#trim();
      }
    }
    const text = r.text.trim();
    // Silence: an interim with no words says nothing; a final with none only closes an utterance already shown.
    if (!text && (!r.isFinal || id === undefined)) {
      if (r.isFinal) this.#ids.delete(r.key);
      return;
    }
    if (id === undefined) {
      id = this.#carriedId ?? `u${this.#nextId++}`;
      this.#carriedId = null;
      this.#ids.set(r.key, id);
    }
    if (r.isFinal) this.#ids.delete(r.key);
    this.events.onUtterance({
      utteranceId: id,
      text,
      isFinal: r.isFinal,
      startSeconds: round3(base + r.start),
      endSeconds: round3(base + Math.max(r.start, r.end)),
      ...(r.confidence !== undefined ? { confidence: r.confidence } : {}),
    });
  }

  /** A method, not a field read: TypeScript would keep a narrowing of #state across awaits. */
  #isClosed(): boolean {
    return this.#state === 'closed';
  }

  #stopTimers(): void {
    if (this.#keepAliveTimer) clearInterval(this.#keepAliveTimer);
    this.#keepAliveTimer = null;
    if (this.#backoffTimer) clearTimeout(this.#backoffTimer);
    this.#wakeBackoff?.();
  }

  #end(error: StreamingError | undefined): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    speechStreamsOpen.dec({ provider: this.provider });
    this.#stopTimers();
    const conn = this.#conn;
    this.#conn = null;
    conn?.abort();
    this.#onLost?.(null);
    this.#chunks = [];
    this.#bufferedBytes = 0;
    this.#resolveFinish?.();
    this.events.onClose(error ? { error } : {});
  }
}

/**
 * Opens a resilient stream. Resolves once the first connection is up, or as soon as its first
 * attempt failed in a way worth retrying (audio written meanwhile is kept and sent once
 * connected). Rejects when the provider refused the first attempt for good (a bad key, bad
 * settings): nothing was opened, and onClose is not called.
 */
export function openResilientStream(args: {
  provider: StreamingProviderName;
  displayName: string;
  connect: Connect;
  tuning: LiveTuning;
  options: StreamingOptions;
  events: StreamingEvents;
}): Promise<SpeechStream> {
  return new Promise((resolve, reject) => {
    const stream: ResilientStream = new ResilientStream(
      args.provider,
      args.displayName,
      args.connect,
      args.tuning,
      args.events,
      args.options.sampleRate ?? 16_000,
      (error) => (error ? reject(error) : resolve(stream)),
    );
  });
}

function asStreamingError(err: unknown, displayName: string): StreamingError {
  if (err instanceof StreamingError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new StreamingError(`${displayName} could not be reached: ${message}`, true);
}

const alignedBytes = (bytes: number): number => Math.max(0, Math.floor(bytes / 2) * 2);
const round3 = (n: number): number => Math.round(n * 1000) / 1000;
