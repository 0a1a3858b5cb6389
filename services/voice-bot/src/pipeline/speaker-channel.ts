import type { Logger } from '@chronicler/kit';
import type { StreamGate, StreamingProvider, StreamingUtterance } from '@chronicler/speech';
import type { OggAppendPoint } from './ogg-file.ts';
import { OggOpusRecorder } from './ogg-writer.ts';
import { OpusFrameEncoder, OpusPacketDecoder, opusPacketSamples } from './opus.ts';
import { Downsampler48kStereoTo16kMono } from './resample.ts';
import {
  PROVIDER_SAMPLE_RATE,
  SpeakerStreams,
  type StreamPolicy,
  type StreamRun,
  type TranscriptionGap,
} from './speaker-stream.ts';

/** Who is speaking: `key` names the speaker's channel and file (Discord: the user id). */
export interface Speaker {
  key: string;
  /** Shown in the transcript; blank when the pipeline does not know the speaker. */
  displayName: string;
  userId?: string;
}

/** PCM the pipeline takes: Discord's decoded format, or what the provider takes already. */
export type PcmFormat = 's16le-48k-stereo' | 's16le-16k-mono';

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
  /** False: recorded only (the session is over its speaker limit). */
  transcribe: boolean;
  policy: StreamPolicy;
  logger: Logger;
  /** Seconds since the session started. */
  now(): number;
  onUtterance(channel: SpeakerChannel, run: StreamRun, utterance: StreamingUtterance): void;
  /** The gate is full: the speaker's audio waits for the next free stream. */
  onQueued(channel: SpeakerChannel): void;
  /** Audio of this speaker that was recorded but could not be transcribed. */
  onGap(channel: SpeakerChannel, gap: TranscriptionGap): void;
  /** The speaker's stream failed for good; a gap line follows once it closes. */
  onFailed(channel: SpeakerChannel): void;
  /** The provider refused us for good (a bad key): the session ends with this message. */
  onStreamFailed(channel: SpeakerChannel, message: string): void;
  /** A provider stream of this speaker closed after `seconds` open (what the provider bills). */
  onStreamClosed(channel: SpeakerChannel, run: StreamRun, seconds: number): void;
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
  /** Seconds provider streams were open: what the provider bills. */
  streamSeconds: number;
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
  private readonly streams: SpeakerStreams | null;
  private finishing = false;
  private recorderFailed = false;
  private packets = 0;
  private undecodable = 0;
  private audioSamples48k = 0;

  constructor(
    readonly speaker: Speaker,
    /** Transcript speaker tag: the name, or the speaker's number when the name is unknown. */
    readonly tag: string | number,
    private readonly deps: SpeakerChannelDeps,
  ) {
    this.recorder = deps.recordingPath
      ? new OggOpusRecorder(deps.recordingPath, { tags: deps.recordingTags, append: deps.recordingAppend })
      : null;
    const provider = deps.provider;
    this.streams =
      provider && deps.transcribe
        ? new SpeakerStreams({
            label: deps.label,
            provider,
            gate: deps.gate,
            keyterms: deps.keyterms,
            ...(deps.language ? { language: deps.language } : {}),
            gapSeconds: deps.gapSeconds,
            policy: deps.policy,
            logger: deps.logger,
            now: deps.now,
            onUtterance: (run, u) => deps.onUtterance(this, run, u),
            onQueued: () => deps.onQueued(this),
            onGap: (gap) => deps.onGap(this, gap),
            onFailed: () => deps.onFailed(this),
            onFatal: (message) => deps.onStreamFailed(this, message),
            onStreamClosed: (run, seconds) => deps.onStreamClosed(this, run, seconds),
          })
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
    this.streams?.stopped();
    void this.flushRecording();
  }

  /** Housekeeping (about every second): idle streams released, queued ones retried. */
  tick(): void {
    this.streams?.tick();
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
    await this.streams?.finish(timeoutMs);
    if (this.encoder && this.recorder) for (const p of this.encoder.flush()) this.recorder.writePacket(p);
    this.encoder?.destroy();
    this.decoder?.destroy();
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
      streamedSeconds: this.streams?.streamedSeconds ?? 0,
      streams: this.streams?.streams ?? 0,
      streamSeconds: this.streams?.streamSeconds ?? 0,
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
    if (!this.finishing) this.streams?.write(startSeconds, pcm16k);
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
