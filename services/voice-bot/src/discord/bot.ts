import { findGroupsRpc, groupKeytermsRpc, userByDiscordIdRpc, type AuthUser } from '@chronicler/contracts';
import { call, registry, ServiceError, type Bus, type Coordination, type Logger } from '@chronicler/kit';
import type { StreamGate, StreamingProvider } from '@chronicler/speech';
import {
  Client,
  Events,
  GatewayIntentBits,
  MessageFlags,
  PermissionFlagsBits,
  Routes,
  type AutocompleteInteraction,
  type ChatInputCommandInteraction,
  type Guild,
  type Interaction,
} from 'discord.js';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { LiveSession } from '../pipeline/index.ts';
import { shardOfGuild } from '../config.ts';
import { COMMANDS, helpText } from './commands.ts';
import { Recording, type WatchdogHit } from './recording.ts';
import { endRecovered, openStates, writeState, type SessionState } from './state.ts';
import { TrackUploader } from './track-upload.ts';
import type { VoiceLink, VoiceReceiver } from './voice.ts';

export interface VoiceBotOptions {
  token: string;
  applicationId: string | null;
  devGuildId: string | null;
  apiUrl: string | null;
  publicUrl: string | null;
  shardCount: number;
  shardIds: number[];
  recordingsDir: string;
  defaultName: string;
  watchdogSeconds: number;
  heartbeatSeconds: number;
  bus: Bus;
  coord: Coordination;
  provider: StreamingProvider | null;
  gate: StreamGate | null;
  receiver: VoiceReceiver;
  instance: string;
  logger: Logger;
}

interface GuildVoice {
  link: VoiceLink | null;
  connecting: Promise<VoiceLink> | null;
  recording: Recording | null;
  /** Members who ran /offrecord in this guild (kept across recordings while this process runs). */
  paused: Set<string>;
}

const watchdogRejoins = counterMetric(
  'chronicler_voice_watchdog_rejoins_total',
  'Voice rejoins by the watchdog: someone was speaking and nothing decoded',
);

/**
 * The Discord bot: one discord.js client holding this replica's shards, the slash commands,
 * and a recording per guild driving the live pipeline. Guilds arrive only on the shard Discord
 * routes them to, so a guild's voice session lives in the replica that holds its shard.
 */
export class VoiceBot {
  readonly client: Client;
  private readonly guilds = new Map<string, GuildVoice>();
  private readonly log: Logger;
  private stopping = false;
  /** Hands each ended session's speaker recordings to the transcript service. */
  private readonly tracks: TrackUploader;

  constructor(private readonly o: VoiceBotOptions) {
    this.log = o.logger;
    this.tracks = new TrackUploader({ bus: o.bus, recordingsDir: o.recordingsDir, logger: o.logger });
    this.client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildVoiceStates],
      shards: o.shardIds,
      shardCount: o.shardCount,
      ...(o.apiUrl ? { rest: { api: o.apiUrl } } : {}),
    });
    this.client.on(Events.InteractionCreate, (i) => void this.onInteraction(i));
    this.client.on(Events.Error, (err) => this.log.error({ err }, 'discord client error'));
    this.client.on(Events.ShardReady, (id, unavailable) =>
      this.log.info({ shard: id, unavailableGuilds: unavailable?.size ?? 0 }, 'shard ready'),
    );
    this.client.on(Events.ShardDisconnect, (e, id) =>
      this.log.warn({ shard: id, code: e.code }, 'shard disconnected'),
    );
  }

  /** Logs in every shard of this replica, registers the commands, then closes what a crash left open. */
  async start(): Promise<void> {
    const ready = new Promise<void>((resolve) => this.client.once(Events.ClientReady, () => resolve()));
    try {
      await this.client.login(this.o.token);
    } catch (err) {
      // Leaves the client as new, for the next attempt.
      await this.client.destroy().catch(() => {});
      throw err;
    }
    await ready;
    const appId = this.o.applicationId ?? this.client.application?.id ?? this.client.user!.id;
    // Every replica registers the same list (a PUT replaces it: idempotent); shard 0's does it.
    if (this.o.shardIds.includes(0)) {
      const route = this.o.devGuildId
        ? Routes.applicationGuildCommands(appId, this.o.devGuildId)
        : Routes.applicationCommands(appId);
      await this.client.rest.put(route, { body: COMMANDS });
      this.log.info(
        { commands: COMMANDS.length, scope: this.o.devGuildId ? `guild ${this.o.devGuildId}` : 'global' },
        'slash commands registered',
      );
    }
    this.log.info(
      {
        user: this.client.user?.tag,
        shards: this.o.shardIds,
        shardCount: this.o.shardCount,
        guilds: this.client.guilds.cache.size,
      },
      'voice bot ready',
    );
    await this.recover();
  }

  /** Ends every recording (each stream flushed, each final on the bus), leaves, logs out. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.guilds.entries()].map(async ([guildId, g]) => {
        try {
          await g.recording?.end(undefined, { resume: true });
          g.recording = null;
          // Left in the channel on purpose: the next process finds the bot there and resumes.
          await g.link?.close({ stay: true });
        } catch (err) {
          this.log.warn({ err, guildId }, 'recording not ended cleanly at shutdown');
        }
      }),
    );
    // Uploads still running stop here; their files stay and the next start hands them over.
    this.tracks.stop();
    await this.client.destroy();
  }

  /** Guild ids this replica holds, and its recordings (for status and tests). */
  summary(): { guilds: string[]; recordings: { guildId: string; transcriptId: string }[] } {
    return {
      guilds: [...this.client.guilds.cache.keys()],
      recordings: [...this.guilds.entries()].flatMap(([guildId, g]) =>
        g.recording ? [{ guildId, transcriptId: g.recording.state.transcript_id }] : [],
      ),
    };
  }

  private guildVoice(guildId: string): GuildVoice {
    let g = this.guilds.get(guildId);
    if (!g) {
      g = { link: null, connecting: null, recording: null, paused: new Set() };
      this.guilds.set(guildId, g);
    }
    return g;
  }

  private sessionUrl(transcriptId: string): string {
    return this.o.publicUrl ? `${this.o.publicUrl}/sessions/${transcriptId}` : `/sessions/${transcriptId}`;
  }

  private async onInteraction(interaction: Interaction): Promise<void> {
    if (interaction.isAutocomplete()) {
      await this.autocomplete(interaction).catch((err: unknown) =>
        this.log.warn({ err }, 'autocomplete failed'),
      );
      return;
    }
    if (!interaction.isChatInputCommand()) return;
    const log = this.log.child({
      command: interaction.commandName,
      guildId: interaction.guildId,
      userId: interaction.user.id,
    });
    try {
      if (!interaction.inCachedGuild()) {
        if (interaction.commandName === 'help') {
          await interaction.reply({ content: helpText(this.o.publicUrl), flags: MessageFlags.Ephemeral });
        } else {
          await interaction.reply({
            content: 'Use this command in a server, next to its voice channels.',
            flags: MessageFlags.Ephemeral,
          });
        }
        return;
      }
      switch (interaction.commandName) {
        case 'join':
          return await this.join(interaction);
        case 'start':
          return await this.startCommand(interaction, log);
        case 'stop':
          return await this.stopCommand(interaction);
        case 'leave':
          return await this.leave(interaction);
        case 'status':
          return await this.status(interaction);
        case 'help':
          await interaction.reply({ content: helpText(this.o.publicUrl), flags: MessageFlags.Ephemeral });
          return;
        case 'offrecord':
        case 'onrecord':
          return await this.consent(interaction, interaction.commandName === 'offrecord');
        default:
          await interaction.reply({ content: 'Unknown command.', flags: MessageFlags.Ephemeral });
      }
    } catch (err) {
      log.error({ err }, 'command failed');
      const content = `Something went wrong: ${err instanceof Error ? err.message : String(err)}`;
      const send =
        interaction.deferred || interaction.replied
          ? interaction.editReply({ content })
          : interaction.reply({ content, flags: MessageFlags.Ephemeral });
      await send.catch(() => {});
    }
  }

  private callerChannel(interaction: ChatInputCommandInteraction<'cached'>): string | null {
    return interaction.guild.voiceStates.cache.get(interaction.user.id)?.channelId ?? null;
  }

  private async join(interaction: ChatInputCommandInteraction<'cached'>): Promise<void> {
    const channelId = this.callerChannel(interaction);
    if (!channelId) {
      await interaction.reply({
        content: 'Join a voice channel first, then run `/join` again.',
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    await interaction.deferReply();
    const g = this.guildVoice(interaction.guildId);
    if (g.recording && g.link && g.link.channelId !== channelId) {
      await interaction.editReply(
        `I am recording in <#${g.link.channelId}>; \`/stop\` that first to move to <#${channelId}>.`,
      );
      return;
    }
    await this.ensureLink(interaction.guild, channelId);
    await interaction.editReply(`Joined <#${channelId}>. Run \`/start\` to begin transcribing.`);
  }

  private async ensureLink(guild: Guild, channelId: string): Promise<VoiceLink> {
    const g = this.guildVoice(guild.id);
    if (g.link?.channelId === channelId) return g.link;
    if (g.connecting) {
      const link = await g.connecting;
      if (link.channelId === channelId) return link;
    }
    if (g.link) await g.link.close({ stay: true });
    g.link = null;
    g.connecting = this.o.receiver.connect(guild, channelId, {
      speakingStart: (u) => g.recording?.handlers.speakingStart(u),
      speakingStop: (u) => g.recording?.handlers.speakingStop(u),
      opus: (u, p) => g.recording?.handlers.opus(u, p),
      lost: (reason) => void this.linkLost(guild, channelId, reason),
    });
    try {
      g.link = await g.connecting;
      this.log.info({ guildId: guild.id, channelId }, 'joined voice channel');
      return g.link;
    } finally {
      g.connecting = null;
    }
  }

  private async linkLost(guild: Guild, channelId: string, reason: string): Promise<void> {
    const g = this.guildVoice(guild.id);
    if (this.stopping || g.link?.channelId !== channelId) return;
    g.link = null;
    const rec = g.recording;
    this.log.warn({ guildId: guild.id, channelId, reason, recording: Boolean(rec) }, 'voice link lost');
    if (!rec) return;
    rec.linkDropped();
    try {
      await this.ensureLink(guild, channelId);
      this.log.info({ guildId: guild.id }, 'voice link restored; the recording goes on');
    } catch (err) {
      this.log.error(
        { err, guildId: guild.id },
        'could not get back into the voice channel; ending the recording',
      );
      g.recording = null;
      await rec.end(`The bot lost the voice channel (${reason})`);
      await this.post(
        rec.state.text_channel_id,
        `Recording stopped: I lost the voice channel. What was said so far is saved: ${this.sessionUrl(rec.state.transcript_id)}`,
      );
    }
  }

  private async watchdogRejoin(guild: Guild, hit: WatchdogHit): Promise<void> {
    const g = this.guildVoice(guild.id);
    const channelId = g.link?.channelId ?? g.recording?.state.channel_id;
    watchdogRejoins.inc();
    this.log.warn(
      { guildId: guild.id, channelId, ...hit },
      'voice watchdog: a member is speaking but nothing decodes; rejoining',
    );
    if (!channelId) return;
    const old = g.link;
    g.link = null;
    await old?.close({ stay: true }).catch(() => {});
    try {
      await this.ensureLink(guild, channelId);
      this.log.info({ guildId: guild.id, channelId }, 'voice watchdog: rejoined');
    } catch (err) {
      this.log.error({ err, guildId: guild.id }, 'voice watchdog: rejoin failed');
      await this.linkLost(guild, channelId, 'rejoin failed');
    }
  }

  private async owner(discordId: string): Promise<AuthUser | null> {
    try {
      return await call(this.o.bus, userByDiscordIdRpc, { discord_id: discordId });
    } catch (err) {
      if (ServiceError.is(err) && err.code === 'not_found') return null;
      throw err;
    }
  }

  private signInHint(): string {
    return this.o.publicUrl
      ? `Sign in with Discord at ${this.o.publicUrl}/login`
      : 'Sign in to Chronicler with Discord';
  }

  private async startCommand(interaction: ChatInputCommandInteraction<'cached'>, log: Logger): Promise<void> {
    const g = this.guildVoice(interaction.guildId);
    if (g.recording) {
      const r = g.recording.state;
      await interaction.reply({
        content: `Already recording in <#${r.channel_id}> (started by <@${r.owner_discord_id}>): ${this.sessionUrl(r.transcript_id)}`,
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    const channelId = this.callerChannel(interaction) ?? g.link?.channelId ?? null;
    if (!channelId) {
      await interaction.reply({
        content: 'Join a voice channel first, then run `/start` again.',
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const user = await this.owner(interaction.user.id);
    if (!user) {
      await interaction.editReply(
        `You need a Chronicler account to record: ${this.signInHint()}, then run \`/start\` again. Nothing was recorded.`,
      );
      return;
    }
    const groupName = interaction.options.getString('group')?.trim() || null;
    let group: { id: string; name: string } | null = null;
    if (groupName) {
      const found = await call(this.o.bus, findGroupsRpc, { owner_id: user.id, name: groupName, limit: 1 });
      group = found.items[0] ?? null;
      if (!group) {
        const mine = await call(this.o.bus, findGroupsRpc, { owner_id: user.id, limit: 10 });
        const list = mine.items.map((i) => `“${i.name}”`).join(', ');
        await interaction.editReply(
          `You have no group named “${groupName}”. ${list ? `Your groups: ${list}.` : 'You have no groups yet.'} Nothing was recorded: run \`/start\` again with one of them, or without a group.`,
        );
        return;
      }
    }
    let keyterms: string[] = [];
    if (group) {
      keyterms = await call(
        this.o.bus,
        groupKeytermsRpc,
        { owner_id: user.id, group_id: group.id },
        { timeoutMs: 2000 },
      )
        .then((r) => r.keyterms)
        .catch(() => []);
    }
    if (g.recording) {
      await interaction.editReply('Someone started a recording here a moment ago; see `/status`.');
      return;
    }
    await this.ensureLink(interaction.guild, channelId);
    const name = interaction.options.getString('name')?.trim() || this.o.defaultName;
    const rec = await this.beginRecording(interaction.guild, {
      ownerId: user.id,
      ownerDiscordId: interaction.user.id,
      channelId,
      textChannelId: interaction.channelId,
      name,
      groupId: group?.id ?? null,
      keyterms,
      paused: g.paused,
    });
    log.info({ transcriptId: rec.state.transcript_id, group: group?.id ?? null }, 'recording started');
    // Everyone in the channel hears of it before the owner gets the link.
    await this.post(
      interaction.channelId,
      `🔴 **Recording started** in <#${channelId}> by <@${interaction.user.id}>: everything said there is transcribed into their Chronicler session “${name}”. Don't want to be recorded? \`/offrecord\` pauses your voice, \`/onrecord\` resumes it.`,
    );
    const url = this.sessionUrl(rec.state.transcript_id);
    await interaction.editReply(
      `Recording <#${channelId}> as “${name}”${group ? ` in your group “${group.name}”` : ''}. Read it live: ${url}\n\`/stop\` ends and saves it.`,
    );
  }

  private async beginRecording(
    guild: Guild,
    r: {
      ownerId: string;
      ownerDiscordId: string;
      channelId: string;
      textChannelId: string;
      name: string;
      groupId: string | null;
      keyterms: string[];
      paused: Set<string>;
    },
  ): Promise<Recording> {
    const g = this.guildVoice(guild.id);
    const transcriptId = randomUUID();
    const live = new LiveSession({
      bus: this.o.bus,
      transcriptId,
      ownerId: r.ownerId,
      name: r.name,
      ...(r.groupId ? { groupId: r.groupId } : {}),
      origin: 'discord',
      provider: this.o.provider,
      gate: this.o.gate,
      keyterms: r.keyterms,
      recordingsDir: this.o.recordingsDir,
      logger: this.log,
      guildId: guild.id,
      channelId: r.channelId,
    });
    const state: SessionState = {
      version: 1,
      transcript_id: transcriptId,
      owner_id: r.ownerId,
      owner_discord_id: r.ownerDiscordId,
      guild_id: guild.id,
      channel_id: r.channelId,
      text_channel_id: r.textChannelId,
      shard_id: guild.shardId,
      name: r.name,
      group_id: r.groupId,
      started_at: new Date().toISOString(),
      provider: this.o.provider?.name ?? null,
      paused: [...r.paused],
      ended_at: null,
    };
    const rec = new Recording(live, state, {
      guild,
      coord: this.o.coord,
      recordingsDir: this.o.recordingsDir,
      instance: this.o.instance,
      logger: this.log.child({ guildId: guild.id, transcriptId }),
      watchdogSeconds: this.o.watchdogSeconds,
      heartbeatSeconds: this.o.heartbeatSeconds,
      onStuck: (hit) => void this.watchdogRejoin(guild, hit),
      onEnded: (ended) => void this.tracks.hand(ended),
    });
    g.recording = rec;
    try {
      await rec.begin();
    } catch (err) {
      g.recording = null;
      throw err;
    }
    // The provider failed for good: the pipeline ended the session itself.
    void live.done.then((end) => {
      if (g.recording !== rec || !end.error) return;
      g.recording = null;
      void rec.end(end.error);
      void this.post(
        state.text_channel_id,
        `Recording stopped: ${end.error}. What was said so far is saved: ${this.sessionUrl(transcriptId)}`,
      );
    });
    return rec;
  }

  private mayStop(interaction: ChatInputCommandInteraction<'cached'>, rec: Recording): boolean {
    return (
      rec.state.owner_discord_id === interaction.user.id ||
      Boolean(interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild))
    );
  }

  private async stopRecording(guildId: string): Promise<Recording | null> {
    const g = this.guildVoice(guildId);
    const rec = g.recording;
    if (!rec) return null;
    g.recording = null;
    await rec.end();
    return rec;
  }

  private async stopCommand(interaction: ChatInputCommandInteraction<'cached'>): Promise<void> {
    const rec = this.guildVoice(interaction.guildId).recording;
    if (!rec) {
      await interaction.reply({ content: 'Nothing is being recorded here.', flags: MessageFlags.Ephemeral });
      return;
    }
    if (!this.mayStop(interaction, rec)) {
      await interaction.reply({
        content: `Only <@${rec.state.owner_discord_id}>, who started it, or someone who can manage this server can stop the recording.`,
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    await interaction.deferReply();
    await this.stopRecording(interaction.guildId);
    const finals = rec.live.stats().finals;
    await interaction.editReply(
      `⏹️ **Recording stopped** and saved (${finals} line${finals === 1 ? '' : 's'}). The summary is on its way: ${this.sessionUrl(rec.state.transcript_id)}`,
    );
  }

  private async leave(interaction: ChatInputCommandInteraction<'cached'>): Promise<void> {
    const g = this.guildVoice(interaction.guildId);
    if (!g.link && !g.recording) {
      await interaction.reply({
        content: 'I am not in a voice channel here.',
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    if (g.recording && !this.mayStop(interaction, g.recording)) {
      await interaction.reply({
        content: `I am recording for <@${g.recording.state.owner_discord_id}>; only they or someone who can manage this server can make me leave.`,
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    await interaction.deferReply();
    const rec = await this.stopRecording(interaction.guildId);
    const link = g.link;
    g.link = null;
    await link?.close();
    await interaction.editReply(
      rec
        ? `Left the voice channel. ⏹️ Recording stopped and saved: ${this.sessionUrl(rec.state.transcript_id)}`
        : 'Left the voice channel.',
    );
  }

  private async status(interaction: ChatInputCommandInteraction<'cached'>): Promise<void> {
    const g = this.guildVoice(interaction.guildId);
    const you = g.paused.has(interaction.user.id)
      ? 'You are off the record (`/onrecord` to resume).'
      : 'You are on the record (`/offrecord` to pause).';
    let content: string;
    if (g.recording) {
      const s = g.recording.live.stats();
      const mins = Math.floor(s.elapsedSeconds / 60);
      const secs = Math.floor(s.elapsedSeconds % 60);
      const heard = g.recording.heard();
      content = [
        `🔴 Recording <#${g.recording.state.channel_id}> for <@${g.recording.state.owner_discord_id}> as “${g.recording.state.name}” for ${mins}:${String(secs).padStart(2, '0')}.`,
        `Lines so far: ${s.finals}. Heard: ${heard.length ? heard.join(', ') : 'nobody yet'}.`,
        `Live: ${this.sessionUrl(g.recording.state.transcript_id)}`,
        you,
      ].join('\n');
    } else if (g.link) {
      content = `In <#${g.link.channelId}>, not recording. \`/start\` begins.\n${you}`;
    } else {
      content = `Not in a voice channel. \`/join\` or \`/start\` from a voice channel.\n${you}`;
    }
    await interaction.reply({ content, flags: MessageFlags.Ephemeral });
  }

  private async consent(interaction: ChatInputCommandInteraction<'cached'>, off: boolean): Promise<void> {
    const g = this.guildVoice(interaction.guildId);
    const userId = interaction.user.id;
    if (off) {
      g.paused.add(userId);
      await g.recording?.pause(userId);
      await interaction.reply({
        content:
          'You are **off the record**: nothing you say is captured or transcribed until you run `/onrecord`.',
        flags: MessageFlags.Ephemeral,
      });
    } else {
      g.paused.delete(userId);
      await g.recording?.resume(userId);
      await interaction.reply({
        content: g.recording
          ? 'You are **back on the record**: what you say is transcribed again.'
          : 'You are on the record again for the next recording.',
        flags: MessageFlags.Ephemeral,
      });
    }
  }

  private async autocomplete(interaction: AutocompleteInteraction): Promise<void> {
    if (interaction.commandName !== 'start') return interaction.respond([]);
    const user = await this.owner(interaction.user.id).catch(() => null);
    if (!user) return interaction.respond([]);
    const typed = String(interaction.options.getFocused() ?? '');
    const found = await call(this.o.bus, findGroupsRpc, { owner_id: user.id, prefix: typed, limit: 25 });
    await interaction.respond(
      found.items.map((i) => ({ name: i.name.slice(0, 100), value: i.name.slice(0, 100) })),
    );
  }

  /** A message in a text channel (announcements); failures are logged, not thrown. */
  private async post(channelId: string, content: string): Promise<void> {
    await this.client.rest
      .post(Routes.channelMessages(channelId), { body: { content, allowed_mentions: { parse: [] } } })
      .catch((err: unknown) => this.log.warn({ err, channelId }, 'channel message not sent'));
  }

  /**
   * Sessions a previous process of these shards left open (session.json not ended): each is
   * ended cleanly (journalled finals re-published, then the end). When the bot is still in
   * that voice channel, recording goes on at once in a new session for the same owner.
   */
  private async recover(): Promise<void> {
    const states = (await openStates(this.o.recordingsDir)).filter((s) =>
      this.o.shardIds.includes(shardOfGuild(s.guild_id, this.o.shardCount)),
    );
    for (const state of states) {
      try {
        if (state.ended_at) {
          // Ended by a shutdown: record on if still in the channel.
          await writeState(this.o.recordingsDir, { ...state, resume: false });
          const guild = this.client.guilds.cache.get(state.guild_id);
          if (guild?.members.me?.voice.channelId === state.channel_id) {
            await this.resumeRecording(guild, state, 'The bot restarted');
          }
          continue;
        }
        await endRecovered(
          this.o.bus,
          this.o.recordingsDir,
          state,
          'The voice bot restarted during the recording; it was ended and saved.',
          this.log,
        );
        const guild = this.client.guilds.cache.get(state.guild_id);
        const stillThere = guild?.members.me?.voice.channelId === state.channel_id;
        if (!guild || !stillThere) {
          await this.post(
            state.text_channel_id,
            `The recording was interrupted by a restart of the bot and has been saved: ${this.sessionUrl(state.transcript_id)}`,
          );
          continue;
        }
        await this.resumeRecording(guild, state, 'The bot restarted');
      } catch (err) {
        this.log.error({ err, transcriptId: state.transcript_id }, 'could not recover a session');
      }
    }
    // Speaker tracks of ended sessions not handed over before the last process went away.
    await this.tracks.recover((s) => this.o.shardIds.includes(shardOfGuild(s.guild_id, this.o.shardCount)));
  }

  /** Records on into a new session after a restart, for the same owner and group, and says so. */
  private async resumeRecording(guild: Guild, state: SessionState, why: string): Promise<void> {
    const g = this.guildVoice(guild.id);
    for (const p of state.paused) g.paused.add(p);
    await this.ensureLink(guild, state.channel_id);
    const rec = await this.beginRecording(guild, {
      ownerId: state.owner_id,
      ownerDiscordId: state.owner_discord_id,
      channelId: state.channel_id,
      textChannelId: state.text_channel_id,
      name: state.name.endsWith(' (continued)') ? state.name : `${state.name} (continued)`.slice(0, 200),
      groupId: state.group_id,
      keyterms: [],
      paused: g.paused,
    });
    this.log.info(
      { previous: state.transcript_id, transcriptId: rec.state.transcript_id },
      'recording resumed after a restart',
    );
    await this.post(
      state.text_channel_id,
      `🔴 ${why}: the recording so far is saved (${this.sessionUrl(state.transcript_id)}) and recording goes on here: ${this.sessionUrl(rec.state.transcript_id)}`,
    );
  }
}

/** A Prometheus counter on the kit's registry (prom-client is the kit's dependency, not ours). */
function counterMetric(name: string, help: string): { inc(): void } {
  let value = 0;
  const existing = registry.getSingleMetric(name) as unknown as { inc?(): void } | undefined;
  if (existing?.inc) return { inc: () => existing.inc!() };
  const metric = {
    name,
    help,
    type: 'counter',
    aggregator: 'sum',
    inc() {
      value++;
    },
    reset() {
      value = 0;
    },
    get: async () => ({ name, help, type: 'counter', aggregator: 'sum', values: [{ value, labels: {} }] }),
  };
  registry.registerMetric(metric as never);
  return metric;
}

export const recordingsPath = (dataDir: string): string => path.join(dataDir, 'recordings');
