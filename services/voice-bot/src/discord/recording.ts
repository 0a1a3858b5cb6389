import { liveSessionHeartbeatKey } from '@chronicler/contracts';
import type { ConsentMode } from '@chronicler/contracts';
import type { Bus, Coordination, Logger } from '@chronicler/kit';
import type { Guild } from 'discord.js';
import { announceReconnecting, type LiveSession } from '../pipeline/index.ts';
import type { Speaker } from '../pipeline/index.ts';
import { writeState, type SessionState } from './state.ts';
import type { Handoff } from './handover.ts';
import type { VoiceHandlers } from './voice.ts';

interface SpeakingState {
  since: number;
  /** Packets that decoded, as of the last check, and when that number last went up. */
  good: number;
  goodAt: number;
}

export interface WatchdogHit {
  userId: string;
  speakingSeconds: number;
  packets: number;
  undecodable: number;
}

/**
 * One recording in one guild: routes the voice link's events into the live pipeline for the
 * members who may be recorded (not bots, not muted, not paused), keeps session.json current,
 * heartbeats for the stale sweep, and watches for "someone speaks but nothing decodes".
 */
export class Recording {
  readonly paused: Set<string>;
  /**
   * Members told that this channel is recorded: those in it when the announcement went out,
   * and each later joiner once their notice is sent. In announce mode nobody else is captured.
   */
  readonly noticed: Set<string>;
  private readonly speakers = new Map<string, Speaker | 'skip' | 'pending'>();
  private readonly speaking = new Map<string, SpeakingState>();
  private heartbeat: NodeJS.Timeout | null = null;
  private watchdog: NodeJS.Timeout | null = null;
  private lastRejoinAt = 0;
  private ended = false;
  /** Its side of a hand-over to a successor process (handover.ts), once it runs. */
  handoff: Handoff | null = null;

  constructor(
    readonly live: LiveSession,
    readonly state: SessionState,
    private readonly deps: {
      guild: Guild;
      coord: Coordination;
      bus: Bus;
      recordingsDir: string;
      instance: string;
      logger: Logger;
      watchdogSeconds: number;
      /** How often the stale-session sweep is told this session is alive (lapses after 3). */
      heartbeatSeconds: number;
      /** The watchdog found a speaker whose audio does not decode: drop the link and join again. */
      onStuck(hit: WatchdogHit): void;
      /** The session ended and its recordings are closed (their upload starts). */
      onEnded?(state: SessionState): void;
      /**
       * The server's consent mode for this recording, and who pressed Record me (a live set:
       * a press counts at once). Opt-in: only those are captured.
       */
      consent: { mode: ConsentMode; optedIn: ReadonlySet<string> };
      /** Members in the channel when the recording was announced. */
      present: Iterable<string>;
    },
  ) {
    this.paused = new Set(state.paused);
    this.noticed = new Set(deps.present);
  }

  get consentMode(): ConsentMode {
    return this.deps.consent.mode;
  }

  async begin(): Promise<void> {
    await writeState(this.deps.recordingsDir, this.state);
    await this.live.start();
    const beat = (): void => {
      this.deps.coord.cache
        .set(
          liveSessionHeartbeatKey(this.state.transcript_id),
          this.deps.instance,
          3 * this.deps.heartbeatSeconds * 1000,
        )
        .catch((err: unknown) => this.deps.logger.debug({ err }, 'live session heartbeat failed'));
    };
    beat();
    this.heartbeat = setInterval(beat, this.deps.heartbeatSeconds * 1000);
    this.heartbeat.unref();
    this.watchdog = setInterval(() => this.check(), 500);
    this.watchdog.unref();
  }

  /** The handlers a voice link feeds while this recording runs. */
  readonly handlers: Omit<VoiceHandlers, 'lost'> = {
    speakingStart: (userId) => {
      const speaker = this.speakerFor(userId);
      if (speaker === 'skip') return;
      if (!this.speaking.has(userId)) {
        const now = Date.now();
        this.speaking.set(userId, { since: now, good: this.goodPackets(userId), goodAt: now });
      }
    },
    speakingStop: (userId) => {
      this.speaking.delete(userId);
      if (typeof this.speakers.get(userId) === 'object') this.live.speakerStopped(userId);
    },
    opus: (userId, packet, atMs) => {
      const speaker = this.speakerFor(userId);
      if (typeof speaker !== 'object') return;
      if (!this.speaking.has(userId)) this.handlers.speakingStart(userId);
      this.live.pushOpus(speaker, packet, atMs);
    },
  };

  /** /offrecord: nothing of this member is captured or sent from now on. */
  async pause(userId: string): Promise<void> {
    this.paused.add(userId);
    this.speaking.delete(userId);
    // Whatever was said before the pause still gets its final.
    this.live.speakerStopped(userId);
    await this.persist();
  }

  async resume(userId: string): Promise<void> {
    this.paused.delete(userId);
    // Looked up again on the next speech (a member's mute may have changed meanwhile).
    this.speakers.delete(userId);
    await this.persist();
  }

  /** The link dropped (rejoin, reconnect): every speaker's current run gets its final. */
  /** The bot was moved to another channel: the recording goes on there (crash recovery too). */
  async movedTo(channelId: string): Promise<void> {
    this.state.channel_id = channelId;
    await this.persist();
  }

  linkDropped(): void {
    for (const userId of this.speaking.keys()) this.live.speakerStopped(userId);
    this.speaking.clear();
  }

  /** Names of the members heard so far, in order of first speech. */
  heard(): string[] {
    return [...this.speakers.values()].flatMap((s) => (typeof s === 'object' ? [s.displayName] : []));
  }

  /** Ends the live session (flushing every stream), marks the state ended, hands the tracks over. */
  async end(error?: string): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.stopTimers();
    const end = await this.live.end(error ? { error } : {});
    this.state.ended_at = end.ended_at;
    await this.persist();
    this.deps.onEnded?.(this.state);
    await this.deps.coord.cache.del(liveSessionHeartbeatKey(this.state.transcript_id)).catch(() => {});
  }

  /**
   * Resolves once no recorded member has been speaking (Discord's speaking end, plus the
   * receiver's grace) or after `maxMs`; answers whether it was quiet.
   */
  async untilQuiet(maxMs: number): Promise<boolean> {
    const until = Date.now() + maxMs;
    while (this.speaking.size > 0) {
      if (Date.now() >= until || this.ended) return false;
      await new Promise((r) => setTimeout(r, 50));
    }
    return true;
  }

  /**
   * A shutdown (a deploy): every stream flushed and every final on the bus, but the session
   * stays open for the process that takes the shard over (session.json says since when). The
   * heartbeat is left to lapse on its own, so the stale sweep waits for the hand-over.
   * `seamless`: the successor already records (handover.ts), so viewers are told of no pause.
   */
  async handOver(opts: { seamless?: boolean } = {}): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.stopTimers();
    const end = await this.live.suspend();
    this.state.suspended_at = new Date().toISOString();
    await this.persist();
    if (opts.seamless) return;
    const at = (Date.parse(end.ended_at) - Date.parse(this.state.started_at)) / 1000;
    await announceReconnecting(
      this.deps.bus,
      this.state.transcript_id,
      end.final_count + 1,
      this.state.started_at,
      at,
    );
  }

  private stopTimers(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.watchdog) clearInterval(this.watchdog);
  }

  private async persist(): Promise<void> {
    this.state.paused = [...this.paused];
    await writeState(this.deps.recordingsDir, this.state).catch((err: unknown) =>
      this.deps.logger.warn({ err }, 'session state not written'),
    );
  }

  private goodPackets(userId: string): number {
    const s = this.live.stats().speakers.find((x) => x.key === userId);
    return s ? s.packets - s.undecodable : 0;
  }

  private check(): void {
    const now = Date.now();
    const limitMs = this.deps.watchdogSeconds * 1000;
    // One rejoin at a time: the next one only after the new link had its chance.
    if (now - this.lastRejoinAt < 2 * limitMs) return;
    for (const [userId, s] of this.speaking) {
      const good = this.goodPackets(userId);
      if (good > s.good) {
        s.good = good;
        s.goodAt = now;
        continue;
      }
      if (now - s.since >= limitMs && now - s.goodAt >= limitMs) {
        const stats = this.live.stats().speakers.find((x) => x.key === userId);
        this.lastRejoinAt = now;
        this.linkDropped();
        this.deps.onStuck({
          userId,
          speakingSeconds: Math.round((now - s.since) / 100) / 10,
          packets: stats?.packets ?? 0,
          undecodable: stats?.undecodable ?? 0,
        });
        return;
      }
    }
  }

  /**
   * Who a user id is in the transcript, or 'skip' (a bot, muted, paused, not admitted). Members come from
   * the guild's cache (guild create and voice state updates carry them); one not cached yet
   * is fetched, and their audio is dropped for the few milliseconds that takes.
   */
  private speakerFor(userId: string): Speaker | 'skip' | 'pending' {
    if (this.paused.has(userId)) return 'skip';
    // Decided before anything is decoded: opt-in captures only who pressed Record me; announce
    // mode holds a late joiner back until their notice is sent.
    const admitted =
      this.deps.consent.mode === 'opt_in' ? this.deps.consent.optedIn.has(userId) : this.noticed.has(userId);
    if (!admitted) return 'skip';
    const known = this.speakers.get(userId);
    if (known === 'pending') return 'pending';
    const member = this.deps.guild.members.cache.get(userId);
    const voice = this.deps.guild.voiceStates.cache.get(userId);
    if (member && (member.user.bot || voice?.mute)) {
      // A muted member's stray packets are not recorded; looked at again next time.
      if (voice?.mute && !member.user.bot) return 'skip';
      this.speakers.set(userId, 'skip');
      return 'skip';
    }
    if (known) return known;
    if (!member) {
      this.speakers.set(userId, 'pending');
      this.deps.guild.members.fetch(userId).then(
        () => this.speakers.delete(userId),
        (err: unknown) => {
          this.deps.logger.warn({ err, userId }, 'speaker not found in the guild; not recorded');
          this.speakers.set(userId, 'skip');
        },
      );
      return 'pending';
    }
    const speaker: Speaker = { key: userId, displayName: member.displayName.slice(0, 100), userId };
    this.speakers.set(userId, speaker);
    return speaker;
  }
}
