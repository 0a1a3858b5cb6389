import { userByDiscordIdRpc, type AuthUser } from '@chronicler/contracts';
import { call, ServiceError, type Bus, type Coordination, type Logger } from '@chronicler/kit';
import type { StreamGate, StreamingProvider } from '@chronicler/speech';
import { PermissionFlagsBits, Routes, type ChatInputCommandInteraction, type Client } from 'discord.js';
import { shardOfGuild, type RecordingLimits } from '../config.ts';
import type { StreamPolicy } from '../pipeline/speaker-stream.ts';
import type { HeldAudio } from './handover.ts';
import type { Recording } from './recording.ts';
import type { SettingsCache } from './settings-cache.ts';
import type { TrackUploader } from './track-upload.ts';
import type { VoiceLink, VoiceReceiver } from './voice.ts';

export interface VoiceBotOptions {
  token: string;
  applicationId: string | null;
  devGuildId: string | null;
  apiUrl: string | null;
  publicUrl: string | null;
  /** How long /recording's download links last. */
  recordingLinkTtlSeconds?: number;
  /** null until resolved: Discord's recommendation (GET /gateway/bot), set by start(). */
  shardCount: number | null;
  shardIds: number[];
  /** This replica's shard ids of a shard count (see config shardIdsOf). */
  shardIdsFor(count: number): number[];
  recordingsDir: string;
  defaultName: string;
  watchdogSeconds: number;
  heartbeatSeconds: number;
  /** After SIGTERM, how long a recording waits for a successor to take it over (handover.ts). */
  handoverWaitMs?: number;
  bus: Bus;
  coord: Coordination;
  provider: StreamingProvider | null;
  gate: StreamGate | null;
  receiver: VoiceReceiver;
  instance: string;
  logger: Logger;
  /** Per-owner, per-guild and per-recording limits (limitsOf the configuration). */
  limits: RecordingLimits;
  /** Idle release, queueing and retry of speakers' provider streams; unset: the pipeline's defaults. */
  streamPolicy?: Partial<StreamPolicy>;
}

/** What the bot holds for one guild: its voice link and the recording running there. */
export interface GuildVoice {
  link: VoiceLink | null;
  connecting: Promise<VoiceLink> | null;
  recording: Recording | null;
  /** What the voice link hears while a predecessor hands its recording over (see handover.ts). */
  held: HeldAudio | null;
  /** Members off the record in this guild (/offrecord, Not me): stored, loaded by consent.ts. */
  paused: Set<string>;
  /** Members who pressed Record me (or ran /onrecord): the only ones recorded in opt-in mode. */
  optedIn: Set<string>;
  /** The stored choices being read (once per process). */
  consentLoaded: Promise<void> | null;
}

/**
 * The state every part of the bot shares (the options, the discord.js client, each guild's
 * voice) and the small helpers they all use: the commands, the recording lifecycle, the voice
 * links and the recovery after a restart each take it as their first argument.
 */
export class BotCore {
  readonly log: Logger;
  private readonly guilds = new Map<string, GuildVoice>();
  /** Set once shutdown begins: a lost link is then expected, not repaired. */
  stopping = false;

  constructor(
    readonly o: VoiceBotOptions,
    readonly client: Client,
    /** Hands each ended session's speaker recordings to the transcript service. */
    readonly tracks: TrackUploader,
    /** Each server's settings (group service), dropped when they change. */
    readonly settings: SettingsCache,
  ) {
    this.log = o.logger;
  }

  get limits(): RecordingLimits {
    return this.o.limits;
  }

  guildVoice(guildId: string): GuildVoice {
    let g = this.guilds.get(guildId);
    if (!g) {
      g = {
        link: null,
        connecting: null,
        recording: null,
        held: null,
        paused: new Set(),
        optedIn: new Set(),
        consentLoaded: null,
      };
      this.guilds.set(guildId, g);
    }
    return g;
  }

  allGuildVoices(): [string, GuildVoice][] {
    return [...this.guilds.entries()];
  }

  /** Whether this replica holds the guild's shard. */
  holdsGuild(guildId: string): boolean {
    return this.o.shardIds.includes(shardOfGuild(guildId, this.o.shardCount ?? 1));
  }

  sessionUrl(transcriptId: string): string {
    return this.o.publicUrl ? `${this.o.publicUrl}/sessions/${transcriptId}` : `/sessions/${transcriptId}`;
  }

  signInHint(): string {
    return this.o.publicUrl
      ? `Sign in with Discord at ${this.o.publicUrl}/login`
      : 'Sign in to Chronicler with Discord';
  }

  /** The Chronicler account signed in with this Discord user, if any. */
  async owner(discordId: string): Promise<AuthUser | null> {
    try {
      return await call(this.o.bus, userByDiscordIdRpc, { discord_id: discordId });
    } catch (err) {
      if (ServiceError.is(err) && err.code === 'not_found') return null;
      throw err;
    }
  }

  /** Whoever started the recording, or someone who can manage the server, may stop it. */
  mayStop(interaction: ChatInputCommandInteraction<'cached'>, rec: Recording): boolean {
    return (
      rec.state.owner_discord_id === interaction.user.id ||
      Boolean(interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild))
    );
  }

  /** A message in a text channel (announcements); failures are logged, not thrown. */
  async post(channelId: string, content: string): Promise<void> {
    await this.client.rest
      .post(Routes.channelMessages(channelId), { body: { content, allowed_mentions: { parse: [] } } })
      .catch((err: unknown) => this.log.warn({ err, channelId }, 'channel message not sent'));
  }
}
