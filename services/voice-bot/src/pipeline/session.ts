import path from 'node:path';
import {
  liveMsgId,
  liveStream,
  liveSubject,
  speechStreamRecordedEvent,
  usageEventsStream,
  type LiveSessionEnd,
  type LiveSessionStart,
} from '@chronicler/contracts';
import { liveAudioPackets, liveFinalsPublished, liveSpeechUtterances, type Logger } from '@chronicler/kit';
import type { StreamingUtterance } from '@chronicler/speech';
import type { OggAppendPoint } from './ogg-file.ts';
import { DurableOutbox } from './outbox.ts';
import type { LiveSessionOptions } from './session-options.ts';
import { SpeakerChannel, type PcmFormat, type Speaker, type SpeakerStats } from './speaker-channel.ts';
import * as lines from './session-lines.ts';
import { OPUS_SILENCE_FRAME } from './opus.ts';
import { noteId, noteUtterance, type ResumePoint } from './resume.ts';
import {
  DEFAULT_STREAM_POLICY,
  type StreamPolicy,
  type StreamRun,
  type TranscriptionGap,
} from './speaker-stream.ts';

type State = 'created' | 'live' | 'ending' | 'ended';

/**
 * One live session, from a speaker's audio arriving to utterances on the bus. The Discord
 * bot (or a replay) calls `start()`, pushes each speaker's audio as it arrives, tells it when
 * a speaker stops, and calls `end()`. The start, every final and the end go out durably, in
 * order, through one outbox; interims go out fire-and-forget once the start is on the bus.
 */
export class LiveSession {
  readonly transcriptId: string;
  private state: State = 'created';
  private startedAtMs = 0;
  private readonly channels = new Map<string, SpeakerChannel>();
  private readonly outbox: DurableOutbox;
  private readonly log: Logger;
  private readonly now: () => number;
  private startAcked = false;
  private interimCount = 0;
  private finalCount = 0;
  private readonly finalIds = new Set<string>();
  private unknownSpeakers = 0;
  private flushTimer: NodeJS.Timeout | null = null;
  private tickTimer: NodeJS.Timeout | null = null;
  private gaps = 0;
  /** Streams a previous process of this session opened (a resumed session numbers on from them). */
  private get streamBase(): number {
    return this.opts.resume?.streamBase ?? 0;
  }
  private readonly policy: StreamPolicy;
  private endPromise: Promise<LiveSessionEnd> | null = null;
  private resolveDone!: (end: LiveSessionEnd) => void;
  /** Resolves with the end message once the session has ended, whoever ended it. */
  readonly done: Promise<LiveSessionEnd>;

  constructor(private readonly opts: LiveSessionOptions) {
    this.transcriptId = opts.transcriptId;
    this.now = opts.now ?? Date.now;
    this.log = opts.logger.child({ transcriptId: opts.transcriptId });
    this.outbox = new DurableOutbox({
      bus: opts.bus,
      logger: this.log,
      journalPath: opts.recordingsDir ? path.join(this.sessionDir()!, 'finals.jsonl') : null,
      retry: opts.retry,
      // The transcript service creates the stream too; creating it here as well means a bot
      // that starts first does not lose its first messages.
      prepare: async () => {
        await opts.bus.ensureStream(liveStream);
        await opts.bus.ensureStream(usageEventsStream);
      },
    });
    this.policy = { ...DEFAULT_STREAM_POLICY, ...opts.streamPolicy };
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  /** Seconds since the session started. */
  get elapsedSeconds(): number {
    return this.state === 'created' ? 0 : Math.max(0, (this.now() - this.startedAtMs) / 1000);
  }

  /**
   * Starts the clock and queues the start message; resolves once the bus has it (retrying
   * while it is down). Audio is taken from the moment this is called; no utterance goes out
   * before the start does.
   */
  async start(): Promise<void> {
    if (this.state !== 'created') throw new Error('The live session was already started');
    this.state = 'live';
    const o = this.opts;
    this.startedAtMs = o.resume?.startedAtMs ?? this.now();
    this.finalCount = o.resume?.finalCount ?? 0;
    if (!o.provider) {
      this.log.warn('no speech provider configured: the session records audio but transcribes nothing');
    }
    const start: LiveSessionStart = {
      transcript_id: o.transcriptId,
      owner_id: o.ownerId,
      started_at: new Date(this.startedAtMs).toISOString(),
      origin: o.origin,
      ...(o.name ? { name: o.name.slice(0, 200) } : {}),
      ...(o.groupId ? { group_id: o.groupId } : {}),
      ...(o.provider ? { provider: o.provider.name } : {}),
      ...(o.guildId ? { guild_id: o.guildId } : {}),
      ...(o.channelId ? { channel_id: o.channelId } : {}),
    };
    const flushMs = o.recordingFlushMs ?? 1000;
    if (o.recordingsDir) {
      this.flushTimer = setInterval(() => void this.flushRecordings(), flushMs);
      this.flushTimer.unref();
    }
    this.tickTimer = setInterval(() => {
      for (const c of this.channels.values()) c.tick();
    }, o.tickMs ?? 1000);
    this.tickTimer.unref();
    await this.outbox.enqueue({
      subject: liveSubject.start(o.transcriptId),
      payload: start,
      msgId: liveMsgId.start(o.transcriptId),
    });
    this.startAcked = true;
    this.log.info(
      { origin: o.origin, provider: o.provider?.name ?? null, resumed: Boolean(o.resume) },
      o.resume ? 'live session resumed' : 'live session started',
    );
    if (o.resume) await this.adopt(o.resume);
  }

  /** A resumed session's speakers: recordings appended to, the audio a crash cut transcribed. */
  private async adopt(resume: ResumePoint): Promise<void> {
    for (const s of resume.speakers) {
      const channel = this.channelFor(s.speaker, s.append);
      if (!channel || s.tail.length === 0) continue;
      const before = this.finalCount;
      const end = Number(s.tail.at(-1)!.granule) / 48_000;
      for (const p of s.tail) channel.pushOpus(p.data, Number(p.granule) / 48_000, false);
      // A second of silence after it: the provider ends the utterance as it would live.
      for (let i = 1; i <= 50; i++) channel.pushOpus(OPUS_SILENCE_FRAME, end + i * 0.02, false);
      channel.stopped();
      for (let waited = 0; this.finalCount === before && waited < 8000; waited += 100) {
        await new Promise((r) => setTimeout(r, 100));
      }
      this.log.info(
        { speaker: s.speaker.key, seconds: s.tail.length / 50, finals: this.finalCount - before },
        'spooled audio after the last final transcribed',
      );
    }
  }

  /**
   * A line of the session itself (a marked pause), in order with the finals. `id`: the index
   * its utterance id takes when viewers were already shown a notice under it (announceReconnecting).
   */
  note(text: string, startSeconds: number, endSeconds: number, opts: { id?: number } = {}): void {
    if (this.state !== 'live') return;
    this.finalCount++;
    const message = noteUtterance(this.transcriptId, this.finalCount, text, startSeconds, endSeconds);
    if (opts.id !== undefined) message.utterance_id = noteId(opts.id);
    message.session_start_time = new Date(this.startedAtMs).toISOString();
    void this.outbox.enqueue({
      subject: liveSubject.final(this.transcriptId),
      payload: message,
      msgId: liveMsgId.final(this.transcriptId, message.utterance_id),
      journal: true,
    });
  }

  /** One Opus packet (48 kHz stereo) of `speaker` as it arrives, or held since `atMs` (a hand-over's). */
  pushOpus(speaker: Speaker, packet: Buffer, atMs?: number): void {
    liveAudioPackets.inc();
    const at = atMs === undefined ? this.elapsedSeconds : Math.max(0, (atMs - this.startedAtMs) / 1000);
    this.channelFor(speaker)?.pushOpus(packet, at);
  }

  /** PCM of `speaker` as it arrives: Discord's decoded 48 kHz stereo, or 16 kHz mono. */
  pushPcm(speaker: Speaker, pcm: Buffer, format: PcmFormat = 's16le-48k-stereo'): void {
    liveAudioPackets.inc();
    const channel = this.channelFor(speaker);
    channel?.pushPcm(pcm, format, this.elapsedSeconds);
  }

  /** The speaker stopped talking (Discord's speaking end). */
  speakerStopped(key: string): void {
    if (this.state !== 'live') return;
    this.channels.get(key)?.stopped();
  }

  /** Writes every speaker's queued audio to disk now (the timer does it every second anyway). */
  async flushRecordings(): Promise<void> {
    await Promise.all([...this.channels.values()].map((c) => c.flushRecording()));
  }

  stats(): { elapsedSeconds: number; interims: number; finals: number; speakers: SpeakerStats[] } {
    return {
      elapsedSeconds: this.elapsedSeconds,
      interims: this.interimCount,
      finals: this.finalCount,
      speakers: [...this.channels.values()].map((c) => c.stats()),
    };
  }

  /**
   * Ends the session: finishes every stream (their last finals, bounded by a timeout), waits
   * until the bus has every final, closes the recordings, releases the leases, then publishes
   * the end message with the counts. Calling it again returns the same promise.
   */
  end(opts: { error?: string } = {}): Promise<LiveSessionEnd> {
    this.endPromise ??= this.finish(opts.error, true);
    return this.endPromise;
  }

  /** end() without the end message: every final on the bus, the session left for the next process. */
  suspend(): Promise<LiveSessionEnd> {
    this.endPromise ??= this.finish(undefined, false);
    return this.endPromise;
  }

  private async finish(error: string | undefined, publishEnd: boolean): Promise<LiveSessionEnd> {
    const wasStarted = this.state !== 'created';
    this.state = 'ending';
    if (error) this.log.warn({ error }, 'live session ending with an error');
    const timeoutMs = this.opts.finishTimeoutMs ?? 10_000;
    await Promise.all([...this.channels.values()].map((c) => c.finish(timeoutMs)));
    if (this.flushTimer) clearInterval(this.flushTimer);
    if (this.tickTimer) clearInterval(this.tickTimer);
    const end: LiveSessionEnd = {
      transcript_id: this.transcriptId,
      ended_at: new Date(this.now()).toISOString(),
      final_count: this.finalCount,
      interim_count: this.interimCount,
      ...(error ? { error: error.slice(0, 1000) } : {}),
    };
    if (wasStarted && !publishEnd) await this.outbox.idle();
    if (wasStarted && publishEnd) {
      // The outbox is ordered: the end goes out after every final it counts.
      await this.outbox.enqueue({
        subject: liveSubject.end(this.transcriptId),
        payload: end,
        msgId: liveMsgId.end(this.transcriptId),
      });
    }
    this.outbox.stop();
    this.state = 'ended';
    this.log.info(
      { finals: this.finalCount, interims: this.interimCount, speakers: this.channels.size },
      'live session ended',
    );
    this.resolveDone(end);
    return end;
  }

  private sessionDir(): string | null {
    return this.opts.recordingsDir ? path.join(this.opts.recordingsDir, this.transcriptId) : null;
  }

  private channelFor(speaker: Speaker, append?: OggAppendPoint): SpeakerChannel | null {
    if (this.state !== 'live') return null;
    let channel = this.channels.get(speaker.key);
    if (channel) return channel;
    const known = speaker.displayName.trim().length > 0;
    const tag = known ? speaker.displayName.trim().slice(0, 100) : ++this.unknownSpeakers;
    const dir = this.sessionDir();
    const limit = this.opts.maxSpeakers ?? null;
    const transcribe = limit === null || this.channels.size < limit;
    if (!transcribe && this.opts.provider) {
      this.log.warn({ speaker: speaker.key, limit }, 'speaker limit reached; recorded, not transcribed');
      this.opts.onNotice?.({ kind: 'speaker-limit', speaker, limit: limit! });
    }
    channel = new SpeakerChannel(speaker, tag, {
      label: `${this.transcriptId}:${speaker.key}`,
      provider: this.opts.provider,
      gate: this.opts.gate,
      keyterms: this.opts.keyterms,
      language: this.opts.language,
      recordingPath: dir ? path.join(dir, `${lines.fileSafe(speaker.key)}.ogg`) : null,
      ...(append ? { recordingAppend: append } : {}),
      recordingTags: lines.recordingTags(speaker, tag, this.opts.name, this.transcriptId, this.startedAtMs),
      gapSeconds: this.opts.gapSeconds ?? 0.2,
      transcribe,
      policy: this.policy,
      logger: this.log,
      now: () => this.elapsedSeconds,
      onUtterance: (c, run, u) => this.onUtterance(c, run, u),
      onQueued: (c) => this.opts.onNotice?.({ kind: 'queued', speaker: c.speaker }),
      onGap: (c, gap) => this.onGap(c, gap),
      onFailed: (c) => this.opts.onNotice?.({ kind: 'failed', speaker: c.speaker }),
      onStreamFailed: (c, message) => this.onStreamFailed(c, message),
      onStreamClosed: (c, run, seconds) => this.onStreamClosed(c, run, seconds),
    });
    this.channels.set(speaker.key, channel);
    this.log.info({ speaker: speaker.key, tag }, 'speaker joined the live session');
    return channel;
  }

  private onUtterance(channel: SpeakerChannel, run: StreamRun, u: StreamingUtterance): void {
    // Providers answer a flush in silence with an empty final; it is not a line.
    const text = u.text.trim();
    if (text.length === 0 || this.state === 'ended') return;
    liveSpeechUtterances.inc({ kind: u.isFinal ? 'final' : 'interim' });
    const start = run.timeline.toSession(u.startSeconds, 'start');
    const end = Math.max(start, run.timeline.toSession(u.endSeconds, 'end'));
    // A resumed session numbers its streams on from the previous process's.
    const id = lines.utteranceIdOf(channel.speaker.key, run.index + this.streamBase, u.utteranceId);
    this.emit(channel, id, text, start, end, u.isFinal);
  }

  private emit(
    channel: SpeakerChannel,
    id: string,
    text: string,
    from: number,
    to: number,
    isFinal: boolean,
  ): void {
    const message = lines.utteranceMessage({
      transcriptId: this.transcriptId,
      id,
      text,
      from,
      to,
      tag: channel.tag,
      userId: channel.speaker.userId,
      interimCount: this.interimCount,
      startedAtMs: this.startedAtMs,
    });
    if (!isFinal) {
      // Interims are only a preview: none before the start is on the bus, none retried.
      if (!this.startAcked) return;
      this.interimCount++;
      message.interim_count = this.interimCount;
      this.opts.bus.publish(liveSubject.interim(this.transcriptId), message).catch((err: unknown) => {
        this.log.debug({ err, utteranceId: message.utterance_id }, 'interim not published');
      });
      return;
    }
    // The transcript service counts distinct finals against final_count: a provider that
    // repeats a final must not make the end wait for a line that never comes.
    if (this.finalIds.has(message.utterance_id)) return;
    this.finalIds.add(message.utterance_id);
    this.finalCount++;
    // Its place in the session: the transcript service stores it only after the one before.
    message.final_index = this.finalCount;
    void this.outbox
      .enqueue({
        subject: liveSubject.final(this.transcriptId),
        payload: message,
        msgId: liveMsgId.final(this.transcriptId, message.utterance_id),
        journal: true,
      })
      .then(
        () => liveFinalsPublished.inc(),
        // Only after the end (a provider's very late final): the session is closed to it.
        (err: unknown) =>
          this.log.warn({ err, utteranceId: message.utterance_id }, 'final after the end dropped'),
      );
  }

  private onStreamFailed(channel: SpeakerChannel, message: string): void {
    if (this.state !== 'live') return;
    this.log.error(
      { speaker: channel.speaker.key, error: message },
      'speech provider failed; ending the session',
    );
    void this.end({ error: message });
  }

  /** A speaker's stretch that could not be transcribed: a line of theirs that says so. */
  private onGap(channel: SpeakerChannel, gap: TranscriptionGap): void {
    if (this.state === 'ended') return;
    const id = lines.utteranceIdOf(channel.speaker.key, 'gap', `${this.streamBase}.${++this.gaps}`);
    this.emit(channel, id, lines.gapLineText(gap), gap.fromSeconds, gap.toSeconds, true);
  }

  /** Usage as the provider bills it: one record per stream, its open seconds. */
  private onStreamClosed(channel: SpeakerChannel, run: StreamRun, seconds: number): void {
    const provider = this.opts.provider;
    if (!provider || this.state === 'ended') return;
    const record = lines.streamUsage({
      transcriptId: this.transcriptId,
      ownerId: this.opts.ownerId,
      speakerKey: channel.speaker.key,
      index: run.index + this.streamBase,
      provider: provider.name,
      seconds,
      at: this.now(),
    });
    this.outbox
      .enqueue({ subject: speechStreamRecordedEvent.subject, payload: record, msgId: record.record_id })
      .catch((err: unknown) => this.log.warn({ err, record }, 'stream usage not published'));
  }
}
