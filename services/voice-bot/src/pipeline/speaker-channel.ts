import type { Logger } from '@chronicler/kit';
import type {
  SpeechStream,
  StreamGate,
  StreamLease,
  StreamingProvider,
  StreamingUtterance,
} from '@chronicler/speech';
import type { OggAppendPoint } from './ogg-file.ts';
import { OggOpusRecorder } from './ogg-writer.ts';
import { OpusFrameEncoder, OpusPacketDecoder, opusPacketSamples } from './opus.ts';
import { Downsampler48kStereoTo16kMono } from './resample.ts';
import { StreamTimeline } from './timeline.ts';

/** Who is speaking: `key` names the speaker's channel and file (Discord: the user id). */
export interface Speaker {
  key: string;
  /** Shown in the transcript; blank when the pipeline does not know the speaker. */
  displayName: string;
  userId?: string;
}

/** PCM the pipeline takes: Discord's decoded format, or what the provider takes already. */
export type PcmFormat = 's16le-48k-stereo' | 's16le-16k-mono';

export const PROVIDER_SAMPLE_RATE = 16_000;
/** Audio held while a provider stream opens (16 kHz mono s16le: 32 KB per second). */
const MAX_PENDING_BYTES = 30 * PROVIDER_SAMPLE_RATE * 2;

/** One provider stream of a speaker; a stream that closes cleanly is replaced by the next. */
export interface StreamRun {
  readonly index: number;
  readonly timeline: StreamTimeline;
}

interface StreamState extends StreamRun {
  stream: SpeechStream | null;
  opening: Promise<void> | null;
  lease: StreamLease | null;
  pending: Buffer[];
  pendingBytes: number;
  dropping: boolean;
  closed: boolean;
}

export interface SpeakerChannelDeps {
  label: string;
  provider: StreamingProvider | null;
  gate: StreamGate | null;
  keyterms: string[];
  language?: string;
  /** Ogg file of this speaker, or null when nothing is recorded. */
  recordingPath: string | null;
  recordingTags: Record<string, string>;
  /** The file a previous process of this session left: appended to, not started again. */
  recordingAppend?: OggAppendPoint;
  gapSeconds: number;
  logger: Logger;
  onUtterance(channel: SpeakerChannel, run: StreamRun, utterance: StreamingUtterance): void;
  /** The provider stayed down or refused us: the session ends with this message. */
  onStreamFailed(channel: SpeakerChannel, message: string): void;
}

export interface SpeakerStats {
  key: string;
  displayName: string;
  packets: number;
  /** Packets that arrived but could not be decoded (Discord: frames that failed to decrypt). */
  undecodable: number;
  /** Seconds of audio received. */
  audioSeconds: number;
  /** Seconds of audio sent to the provider. */
  streamedSeconds: number;
  streams: number;
  recordingPath: string | null;
  recordedBytes: number;
}

/**
 * Everything about one speaker in one session: the Opus decoder and resampler, the Ogg
 * recording, and the provider stream with its lease and timeline.
 */
export class SpeakerChannel {
  readonly recorder: OggOpusRecorder | null;
  private decoder: OpusPacketDecoder | null = null;
  private encoder: OpusFrameEncoder | null = null;
  private encoderFormat: PcmFormat | null = null;
  private readonly downsampler = new Downsampler48kStereoTo16kMono();
  private state: StreamState | null = null;
  private streamCount = 0;
  /** False after the gate said no: try again only when the speaker next resumes. */
  private mayOpen = true;
  private finishing = false;
  /** finish() is done: a stream that opens only now is closed at once. */
  private finished = false;
  private recorderFailed = false;
  private packets = 0;
  private undecodable = 0;
  private audioSamples48k = 0;
  private streamedSamples = 0;
  /** A stream failed for good: the session is ending, no other stream is opened. */
  private failed = false;

  constructor(
    readonly speaker: Speaker,
    /** Transcript speaker tag: the name, or the speaker's number when the name is unknown. */
    readonly tag: string | number,
    private readonly deps: SpeakerChannelDeps,
  ) {
    this.recorder = deps.recordingPath
      ? new OggOpusRecorder(deps.recordingPath, { tags: deps.recordingTags, append: deps.recordingAppend })
      : null;
  }

  /** One Opus packet that ended at `nowSeconds` (session time); `record` false: on disk already. */
  pushOpus(packet: Buffer, nowSeconds: number, record = true): void {
    this.packets++;
    const samples = opusPacketSamples(packet);
    this.decoder ??= new OpusPacketDecoder();
    const pcm = samples > 0 ? this.decoder.decode(packet) : null;
    if (!pcm) {
      this.undecodable++;
      // The first, then every 50th (a second of Discord audio): enough to see it happening.
      if (this.undecodable === 1 || this.undecodable % 50 === 0) {
        this.deps.logger.warn(
          { speaker: this.speaker.key, undecodable: this.undecodable, packets: this.packets },
          'Opus packet could not be decoded; skipped',
        );
      }
      return;
    }
    const startSeconds = Math.max(0, nowSeconds - samples / 48_000);
    if (record) this.record(startSeconds, [packet]);
    this.audioSamples48k += samples;
    this.transcribe(startSeconds, this.downsampler.process(pcm));
  }

  /** PCM that ended at `nowSeconds`; encoded to Opus for the recording. */
  pushPcm(pcm: Buffer, format: PcmFormat, nowSeconds: number): void {
    const stereo48 = format === 's16le-48k-stereo';
    const bytesPerSample = stereo48 ? 4 : 2;
    const samples = Math.floor(pcm.length / bytesPerSample);
    if (samples === 0) return;
    const duration = samples / (stereo48 ? 48_000 : PROVIDER_SAMPLE_RATE);
    const startSeconds = Math.max(0, nowSeconds - duration);
    if (this.recorder) {
      if (this.encoderFormat !== format) {
        this.encoder?.destroy();
        this.encoder = stereo48
          ? new OpusFrameEncoder({ rate: 48_000, channels: 2 })
          : new OpusFrameEncoder({ rate: PROVIDER_SAMPLE_RATE, channels: 1 });
        this.encoderFormat = format;
      }
      this.record(startSeconds, this.encoder!.encode(pcm));
    }
    this.audioSamples48k += Math.round(duration * 48_000);
    this.transcribe(startSeconds, stereo48 ? this.downsampler.process(pcm) : pcm.subarray(0, samples * 2));
  }

  /** The speaker stopped talking: ask the provider for the final now, put the audio on disk. */
  stopped(): void {
    this.mayOpen = true;
    this.state?.stream?.flush();
    void this.flushRecording();
  }

  /** Writes the recording's queued pages; errors are logged once, never thrown. */
  async flushRecording(): Promise<void> {
    if (!this.recorder) return;
    try {
      await this.recorder.flush();
    } catch (err) {
      this.recordingFailed(err);
    }
  }

  /**
   * Ends the provider stream (waiting for its last finals at most `timeoutMs`, then aborting
   * it), releases its lease and closes the recording.
   */
  async finish(timeoutMs: number): Promise<void> {
    this.finishing = true;
    const state = this.state;
    if (state) {
      if (state.opening) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          state.opening,
          new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
        ]);
        clearTimeout(timer);
      }
      const stream = state.stream;
      if (stream && !state.closed) {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = await Promise.race([
          stream.finish().then(
            () => false,
            (err: unknown) => {
              this.deps.logger.warn(
                { err, speaker: this.speaker.key },
                'speech stream did not finish cleanly',
              );
              return false;
            },
          ),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(true), timeoutMs);
          }),
        ]);
        clearTimeout(timer);
        if (timedOut) {
          this.deps.logger.warn(
            { speaker: this.speaker.key, timeoutMs },
            'speech stream did not deliver its last finals in time; aborted',
          );
          stream.abort();
        }
      }
      await this.release(state);
    }
    if (this.encoder && this.recorder) for (const p of this.encoder.flush()) this.recorder.writePacket(p);
    this.encoder?.destroy();
    this.decoder?.destroy();
    this.finished = true;
    if (this.recorder) {
      try {
        await this.recorder.close();
      } catch (err) {
        this.recordingFailed(err);
      }
    }
  }

  stats(): SpeakerStats {
    return {
      key: this.speaker.key,
      displayName: this.speaker.displayName,
      packets: this.packets,
      undecodable: this.undecodable,
      audioSeconds: this.audioSamples48k / 48_000,
      streamedSeconds: this.streamedSamples / PROVIDER_SAMPLE_RATE,
      streams: this.streamCount,
      recordingPath: this.recorder?.filePath ?? null,
      recordedBytes: this.recorder?.bytesWritten ?? 0,
    };
  }

  private record(startSeconds: number, packets: Buffer[]): void {
    const rec = this.recorder;
    if (!rec || packets.length === 0) return;
    // Keep the file on the session's clock: audio that resumes after a gap (or the first audio,
    // minutes into the session) is preceded by silence up to where it belongs.
    const gap = Math.round(startSeconds * 48_000) - Number(rec.granule);
    if (gap > this.deps.gapSeconds * 48_000) rec.writeSilence(gap);
    for (const p of packets) rec.writePacket(p);
    // A long monologue is written every second even before the session timer comes round.
    if (rec.pending > 50) void this.flushRecording();
  }

  private transcribe(startSeconds: number, pcm16k: Buffer): void {
    const provider = this.deps.provider;
    if (!provider || this.finishing || pcm16k.length === 0) return;
    let state = this.state;
    if (!state || state.closed) {
      if (!this.mayOpen || this.failed) return;
      state = this.openStream(provider);
    }
    if (!state.stream && state.pendingBytes + pcm16k.length > MAX_PENDING_BYTES) {
      // The provider is slow to open: drop this audio rather than grow without bound. It is
      // not counted on the timeline, so later offsets stay right (the next audio that gets
      // through starts a new run).
      if (!state.dropping) {
        state.dropping = true;
        this.deps.logger.warn({ speaker: this.speaker.key }, 'speech stream still opening; audio dropped');
      }
      return;
    }
    state.timeline.append(startSeconds, pcm16k.length / 2);
    if (state.stream) {
      state.stream.write(pcm16k);
      this.streamedSamples += pcm16k.length / 2;
    } else {
      state.pending.push(pcm16k);
      state.pendingBytes += pcm16k.length;
    }
  }

  private openStream(provider: StreamingProvider): StreamState {
    const state: StreamState = {
      index: this.streamCount++,
      timeline: new StreamTimeline(PROVIDER_SAMPLE_RATE, this.deps.gapSeconds),
      stream: null,
      opening: null,
      lease: null,
      pending: [],
      pendingBytes: 0,
      dropping: false,
      closed: false,
    };
    this.state = state;
    state.opening = this.open(provider, state).finally(() => {
      state.opening = null;
    });
    return state;
  }

  private async open(provider: StreamingProvider, state: StreamState): Promise<void> {
    const log = this.deps.logger.child({ speaker: this.speaker.key, stream: state.index });
    if (this.deps.gate) {
      let gateDown = false;
      try {
        state.lease = await this.deps.gate.acquire(provider.name);
      } catch (err) {
        gateDown = true;
        // A gate that cannot be asked (Redis down) should not cost the transcript: go on
        // without a lease and let the provider's own limit answer.
        log.warn({ err }, 'stream gate unavailable; opening the stream without a lease');
      }
      if (state.lease === null && !gateDown) {
        log.warn(
          { provider: provider.name },
          'concurrent speech stream limit reached; recording only until the speaker next resumes',
        );
        this.mayOpen = false;
        state.closed = true;
        this.state = null;
        return;
      }
    }
    let stream: SpeechStream;
    try {
      stream = await provider.open(
        {
          sampleRate: PROVIDER_SAMPLE_RATE,
          keyterms: this.deps.keyterms,
          label: this.deps.label,
          ...(this.deps.language ? { language: this.deps.language } : {}),
        },
        {
          onUtterance: (u) => this.deps.onUtterance(this, state, u),
          onClose: ({ error }) => {
            state.closed = true;
            void this.release(state);
            if (error) {
              this.failed = true;
              this.deps.onStreamFailed(this, error.message);
            } else if (!this.finishing)
              log.info('speech stream closed by the provider; the next audio opens another');
          },
          onReconnect: ({ attempt, reason }) => log.warn({ attempt, reason }, 'speech stream reconnecting'),
        },
      );
    } catch (err) {
      state.closed = true;
      await this.release(state);
      const message = err instanceof Error ? err.message : String(err);
      log.error({ err }, 'speech stream could not be opened');
      this.failed = true;
      this.deps.onStreamFailed(this, message);
      return;
    }
    if (this.finished) {
      // The session ended while the provider was still opening this stream.
      stream.abort();
      state.closed = true;
      await this.release(state);
      return;
    }
    state.stream = stream;
    for (const pcm of state.pending) {
      stream.write(pcm);
      this.streamedSamples += pcm.length / 2;
    }
    state.pending = [];
    state.pendingBytes = 0;
  }

  private async release(state: StreamState): Promise<void> {
    const lease = state.lease;
    state.lease = null;
    if (!lease) return;
    try {
      await lease.release();
    } catch (err) {
      this.deps.logger.warn({ err, speaker: this.speaker.key }, 'stream lease could not be released');
    }
  }

  private recordingFailed(err: unknown): void {
    if (this.recorderFailed) return;
    this.recorderFailed = true;
    this.deps.logger.error(
      { err, speaker: this.speaker.key, file: this.recorder?.filePath },
      'recording to disk failed; transcription goes on',
    );
  }
}
