import type { Logger } from '@chronicler/kit';
import {
  StreamingError,
  type SpeechStream,
  type StreamGate,
  type StreamLease,
  type StreamingProvider,
  type StreamingUtterance,
} from '@chronicler/speech';
import { StreamTimeline } from './timeline.ts';

export const PROVIDER_SAMPLE_RATE = 16_000;
const BYTES_PER_SECOND = PROVIDER_SAMPLE_RATE * 2;
/** Audio held while a provider stream opens (16 kHz mono s16le: 32 KB per second). */
const MAX_OPENING_BYTES = 30 * BYTES_PER_SECOND;

/** One provider stream of a speaker; a stream that closes is replaced on the next audio. */
export interface StreamRun {
  readonly index: number;
  readonly timeline: StreamTimeline;
}

/** How a speaker's provider streams are held, released and replaced. */
export interface StreamPolicy {
  /** A stream that hears nothing for this long is finished and its gate lease freed; null: kept. */
  idleSeconds: number | null;
  /** Audio kept while the gate is full, transcribed once a stream frees (beyond it: dropped). */
  queueSeconds: number;
  /** After a stream failed for good, the speaker's next stream is tried this much later. */
  retrySeconds: number;
}

export const DEFAULT_STREAM_POLICY: StreamPolicy = { idleSeconds: 30, queueSeconds: 300, retrySeconds: 20 };

/** A stretch of one speaker's audio that was recorded but not transcribed. */
export interface TranscriptionGap {
  fromSeconds: number;
  toSeconds: number;
  reason: 'provider' | 'busy';
}

interface SpeakerStreamsDeps {
  label: string;
  provider: StreamingProvider;
  gate: StreamGate | null;
  keyterms: string[];
  language?: string;
  gapSeconds: number;
  policy: StreamPolicy;
  logger: Logger;
  /** Seconds since the session started. */
  now(): number;
  onUtterance(run: StreamRun, utterance: StreamingUtterance): void;
  /** The gate is full: this speaker's audio waits for the next free stream. */
  onQueued(): void;
  onGap(gap: TranscriptionGap): void;
  /** A stream failed for good (its retries spent): the speaker is recorded only for a while. */
  onFailed(message: string): void;
  /** The provider refused us for good (a bad key): no stream of anyone can work. */
  onFatal(message: string): void;
  /** A provider stream closed after being open `seconds` (what the provider bills). */
  onStreamClosed(run: StreamRun, seconds: number): void;
}

interface Run extends StreamRun {
  stream: SpeechStream | null;
  opening: Promise<void> | null;
  lease: StreamLease | null;
  pending: Buffer[];
  pendingBytes: number;
  dropping: boolean;
  closed: boolean;
  /** Waiting for a gate slot; tick() asks again. */
  queued: boolean;
  /** The speaker stopped before the stream was open: flush once it is. */
  flushWanted: boolean;
  firstAudioAt: number | null;
  lastAudioAt: number;
  /** Session seconds the provider stream opened (billing starts), null until then. */
  openedAt: number | null;
  /** Session seconds up to which finals came back. */
  coveredUntil: number | null;
  heard: boolean;
  settled: boolean;
}

/**
 * The provider streams of one speaker, one at a time: opened on speech under a gate lease
 * (queued, with the audio kept, while the gate is full), finished after a stretch of silence
 * so the lease serves someone else, and when one fails for good the speaker's gap is marked
 * and another is tried later while the other speakers go on.
 */
export class SpeakerStreams {
  private run: Run | null = null;
  private count = 0;
  private streamedSamples = 0;
  private billedSeconds = 0;
  private finishing = false;
  private finished = false;
  private fatal = false;
  /** A failure whose gap is still open: it closes when a later stream hears the speaker. */
  private gap: { from: number; reason: TranscriptionGap['reason'] } | null = null;
  private retryAt = 0;
  private lastAudioAt = 0;
  /** Idle streams being finished: the session's end waits for their last finals. */
  private readonly releasing = new Set<Promise<void>>();

  constructor(private readonly deps: SpeakerStreamsDeps) {}

  get streams(): number {
    return this.count;
  }
  get streamedSeconds(): number {
    return this.streamedSamples / PROVIDER_SAMPLE_RATE;
  }
  /** Seconds provider streams were open, closed ones and the current one so far. */
  get streamSeconds(): number {
    const open = this.run?.openedAt ?? null;
    return this.billedSeconds + (open !== null && !this.run!.settled ? this.deps.now() - open : 0);
  }

  /** 16 kHz mono PCM that began at `startSeconds` (session time). */
  write(startSeconds: number, pcm: Buffer): void {
    if (this.finishing || this.fatal || pcm.length === 0) return;
    let run = this.run;
    if (!run || run.closed) {
      // After a failure the speaker is recorded only, until the next try is due.
      if (this.gap?.reason === 'provider' && startSeconds < this.retryAt) return;
      run = this.open();
    }
    const limit = run.queued ? this.deps.policy.queueSeconds * BYTES_PER_SECOND : MAX_OPENING_BYTES;
    if (!run.stream && run.pendingBytes + pcm.length > limit) {
      // Not counted on the timeline, so later offsets stay right.
      if (!run.dropping) {
        run.dropping = true;
        this.deps.logger.warn(
          { speaker: this.deps.label, queued: run.queued },
          'speech stream not open yet and its buffer is full; audio dropped (still recorded)',
        );
      }
      return;
    }
    run.timeline.append(startSeconds, pcm.length / 2);
    run.firstAudioAt ??= startSeconds;
    run.lastAudioAt = this.deps.now();
    this.lastAudioAt = startSeconds + pcm.length / BYTES_PER_SECOND;
    if (run.stream) {
      run.stream.write(pcm);
      this.streamedSamples += pcm.length / 2;
    } else {
      run.pending.push(pcm);
      run.pendingBytes += pcm.length;
    }
  }

  /** The speaker stopped: ask for the final now (or once the stream is open). */
  stopped(): void {
    const run = this.run;
    if (!run) return;
    if (run.stream) run.stream.flush();
    else run.flushWanted = true;
  }

  /** Housekeeping: frees an idle stream, asks the gate again for a queued one. */
  tick(): void {
    const run = this.run;
    if (!run || run.closed || this.finishing) return;
    const idle = this.deps.policy.idleSeconds;
    if (run.stream && idle !== null && this.deps.now() - run.lastAudioAt >= idle) {
      this.run = null;
      this.deps.logger.debug({ speaker: this.deps.label, stream: run.index }, 'speech stream idle; released');
      const done = this.finishRun(run, 10_000).finally(() => this.releasing.delete(done));
      this.releasing.add(done);
      return;
    }
    if (run.queued && !run.opening) {
      run.opening = this.leaseAndConnect(run, true).finally(() => (run.opening = null));
    }
  }

  /** Ends the current stream (its last finals, at most `timeoutMs`) and marks any open gap. */
  async finish(timeoutMs: number): Promise<void> {
    this.finishing = true;
    const run = this.run;
    if (run?.opening) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([run.opening, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
    }
    if (run?.queued && run.firstAudioAt !== null) {
      // Never got a stream: the whole wait is a gap, the audio is in the recording.
      this.markGap(run.firstAudioAt, 'busy');
    }
    if (run) await this.finishRun(run, timeoutMs);
    await Promise.all(this.releasing);
    this.finished = true;
    if (this.gap) this.closeGap(Math.max(this.gap.from, this.lastAudioAt));
  }

  private open(): Run {
    const run: Run = {
      index: this.count++,
      timeline: new StreamTimeline(PROVIDER_SAMPLE_RATE, this.deps.gapSeconds),
      stream: null,
      opening: null,
      lease: null,
      pending: [],
      pendingBytes: 0,
      dropping: false,
      closed: false,
      queued: false,
      flushWanted: false,
      firstAudioAt: null,
      lastAudioAt: this.deps.now(),
      openedAt: null,
      coveredUntil: null,
      heard: false,
      settled: false,
    };
    this.run = run;
    run.opening = this.leaseAndConnect(run, false).finally(() => (run.opening = null));
    return run;
  }

  private async leaseAndConnect(run: Run, retry: boolean): Promise<void> {
    const gate = this.deps.gate;
    const provider = this.deps.provider;
    if (gate) {
      let gateDown = false;
      try {
        run.lease = await gate.acquire(provider.name);
      } catch (err) {
        // A gate that cannot be asked (Redis down) should not cost the transcript.
        gateDown = true;
        this.deps.logger.warn({ err }, 'stream gate unavailable; opening the stream without a lease');
      }
      if (run.lease === null && !gateDown) {
        if (!retry) {
          run.queued = true;
          this.deps.logger.warn(
            { speaker: this.deps.label, provider: provider.name },
            'concurrent speech stream limit reached; the speaker waits for the next free stream',
          );
          this.deps.onQueued();
        }
        return;
      }
    }
    run.queued = false;
    if (this.finished || run.closed) {
      await this.settle(run);
      return;
    }
    await this.connect(run);
  }

  private async connect(run: Run): Promise<void> {
    const log = this.deps.logger.child({ speaker: this.deps.label, stream: run.index });
    let stream: SpeechStream;
    try {
      stream = await this.deps.provider.open(
        {
          sampleRate: PROVIDER_SAMPLE_RATE,
          keyterms: this.deps.keyterms,
          label: this.deps.label,
          ...(this.deps.language ? { language: this.deps.language } : {}),
        },
        {
          onUtterance: (u) => this.heard(run, u),
          onClose: ({ error }) => this.closed(run, error),
          onReconnect: ({ attempt, reason }) => log.warn({ attempt, reason }, 'speech stream reconnecting'),
        },
      );
    } catch (err) {
      log.error({ err }, 'speech stream could not be opened');
      this.closed(run, err instanceof StreamingError ? err : new StreamingError(String(err), true));
      return;
    }
    run.openedAt = this.deps.now();
    if (this.finished || run.closed) {
      // The session ended while the provider was still opening this stream.
      stream.abort();
      run.closed = true;
      await this.settle(run);
      return;
    }
    run.stream = stream;
    for (const pcm of run.pending) {
      stream.write(pcm);
      this.streamedSamples += pcm.length / 2;
    }
    run.pending = [];
    run.pendingBytes = 0;
    if (run.flushWanted) stream.flush();
  }

  private heard(run: Run, u: StreamingUtterance): void {
    if (!run.heard && u.text.trim()) {
      run.heard = true;
      // A stream after a failure works: the speaker's gap ends where its audio began.
      if (this.gap && run.firstAudioAt !== null) this.closeGap(run.firstAudioAt);
    }
    if (u.isFinal) run.coveredUntil = run.timeline.toSession(u.endSeconds, 'end');
    this.deps.onUtterance(run, u);
  }

  private closed(run: Run, error: StreamingError | undefined): void {
    run.closed = true;
    if (this.run === run) this.run = null;
    void this.settle(run);
    if (!error) {
      if (!this.finishing)
        this.deps.logger.info(
          { speaker: this.deps.label },
          'speech stream closed; the next audio opens another',
        );
      return;
    }
    if (!error.retryable) {
      this.fatal = true;
      this.deps.onFatal(error.message);
      return;
    }
    const from = run.coveredUntil ?? run.firstAudioAt ?? this.deps.now();
    this.deps.logger.error(
      { speaker: this.deps.label, error: error.message, retryInSeconds: this.deps.policy.retrySeconds },
      'speech stream failed; this speaker is recorded only until the next try',
    );
    this.retryAt = this.deps.now() + this.deps.policy.retrySeconds;
    const first = !this.gap;
    this.markGap(from, 'provider');
    if (first) this.deps.onFailed(error.message);
  }

  private markGap(from: number, reason: TranscriptionGap['reason']): void {
    if (this.gap) this.gap.from = Math.min(this.gap.from, from);
    else this.gap = { from, reason };
  }

  private closeGap(to: number): void {
    const gap = this.gap;
    if (!gap) return;
    this.gap = null;
    this.deps.onGap({ fromSeconds: gap.from, toSeconds: Math.max(gap.from, to), reason: gap.reason });
  }

  private async finishRun(run: Run, timeoutMs: number): Promise<void> {
    const stream = run.stream;
    if (stream && !run.closed) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        stream.finish().then(
          () => false,
          (err: unknown) => {
            this.deps.logger.warn({ err, speaker: this.deps.label }, 'speech stream did not finish cleanly');
            return false;
          },
        ),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
      ]);
      clearTimeout(timer);
      if (timedOut) {
        this.deps.logger.warn(
          { speaker: this.deps.label, timeoutMs },
          'speech stream did not deliver its last finals in time; aborted',
        );
        stream.abort();
      }
    }
    run.closed = true;
    await this.settle(run);
  }

  /** Frees the run's lease and accounts its open time, once. */
  private async settle(run: Run): Promise<void> {
    if (!run.settled) {
      run.settled = true;
      if (run.openedAt !== null) {
        const seconds = Math.max(0, this.deps.now() - run.openedAt);
        this.billedSeconds += seconds;
        this.deps.onStreamClosed(run, seconds);
      }
    }
    const lease = run.lease;
    run.lease = null;
    if (!lease) return;
    try {
      await lease.release();
    } catch (err) {
      this.deps.logger.warn({ err, speaker: this.deps.label }, 'stream lease could not be released');
    }
  }
}
