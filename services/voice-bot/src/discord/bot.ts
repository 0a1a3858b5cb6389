import type { Consumer } from '@chronicler/kit';
import { Client, Events, GatewayIntentBits, Routes } from 'discord.js';
import { onInteraction } from './commands/index.ts';
import { COMMANDS } from './commands/definitions.ts';
import { BotCore, type VoiceBotOptions } from './core.ts';
import { AutoRecorder } from './auto-record.ts';
import { onVoiceState } from './presence.ts';
import { startRecapPosts } from './recap-post.ts';
import { recover } from './recovery.ts';
import { SettingsCache } from './settings-cache.ts';
import { TrackUploader } from './track-upload.ts';

export type { VoiceBotOptions } from './core.ts';

/**
 * The Discord bot: one discord.js client holding this replica's shards, the slash commands,
 * and a recording per guild driving the live pipeline. Guilds arrive only on the shard Discord
 * routes them to, so a guild's voice session lives in the replica that holds its shard.
 * The parts live beside this file: `commands/` (what each slash command does), `lifecycle.ts`
 * (a recording's start and end), `links.ts` (the voice connection and its repair),
 * `recovery.ts` (what a previous process left open).
 */
export class VoiceBot {
  readonly client: Client;
  private readonly core: BotCore;
  private readonly auto: AutoRecorder;
  /** Posts each session's recap back to Discord once its summary is stored. */
  private recaps: Consumer | null = null;

  constructor(private readonly o: VoiceBotOptions) {
    this.client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildVoiceStates],
      shards: o.shardIds,
      shardCount: o.shardCount,
      ...(o.apiUrl ? { rest: { api: o.apiUrl } } : {}),
    });
    const tracks = new TrackUploader({ bus: o.bus, recordingsDir: o.recordingsDir, logger: o.logger });
    const settings = new SettingsCache(o.bus, o.logger, (guildId) => {
      const guild = this.client.guilds.cache.get(guildId);
      if (guild) void this.auto.check(guild);
    });
    this.core = new BotCore(o, this.client, tracks, settings);
    this.auto = new AutoRecorder(this.core);
    const log = o.logger;
    this.client.on(Events.InteractionCreate, (i) => void onInteraction(this.core, i));
    this.client.on(
      Events.VoiceStateUpdate,
      (before, after) =>
        void onVoiceState(this.core, this.auto, before, after).catch((err: unknown) =>
          log.error({ err }, 'voice state update not handled'),
        ),
    );
    this.client.on(Events.Error, (err) => log.error({ err }, 'discord client error'));
    this.client.on(Events.ShardReady, (id, unavailable) =>
      log.info({ shard: id, unavailableGuilds: unavailable?.size ?? 0 }, 'shard ready'),
    );
    this.client.on(Events.ShardDisconnect, (e, id) =>
      log.warn({ shard: id, code: e.code }, 'shard disconnected'),
    );
  }

  /** Logs in every shard of this replica, registers the commands, then closes what a crash left open. */
  async start(): Promise<void> {
    const log = this.o.logger;
    const ready = new Promise<void>((resolve) => this.client.once(Events.ClientReady, () => resolve()));
    try {
      await this.client.login(this.o.token);
    } catch (err) {
      // Leaves the client as new, for the next attempt.
      await this.client.destroy().catch(() => {});
      throw err;
    }
    await ready;
    this.core.settings.start();
    const appId = this.o.applicationId ?? this.client.application?.id ?? this.client.user!.id;
    // Every replica registers the same list (a PUT replaces it: idempotent); shard 0's does it.
    if (this.o.shardIds.includes(0)) {
      const route = this.o.devGuildId
        ? Routes.applicationGuildCommands(appId, this.o.devGuildId)
        : Routes.applicationCommands(appId);
      await this.client.rest.put(route, { body: COMMANDS });
      log.info(
        { commands: COMMANDS.length, scope: this.o.devGuildId ? `guild ${this.o.devGuildId}` : 'global' },
        'slash commands registered',
      );
    }
    log.info(
      {
        user: this.client.user?.tag,
        shards: this.o.shardIds,
        shardCount: this.o.shardCount,
        guilds: this.client.guilds.cache.size,
      },
      'voice bot ready',
    );
    await recover(this.core);
    // Rules whose channel is already full when the bot comes up.
    for (const guild of this.client.guilds.cache.values()) void this.auto.check(guild);
    this.recaps ??= await startRecapPosts(this.core);
  }

  /** Ends every recording (each stream flushed, each final on the bus), leaves, logs out. */
  async stop(): Promise<void> {
    this.core.stopping = true;
    this.auto.stop();
    await this.core.settings.stop();
    await this.recaps?.stop();
    this.recaps = null;
    await Promise.all(
      this.core.allGuildVoices().map(async ([guildId, g]) => {
        try {
          await g.recording?.end(undefined, { resume: true });
          g.recording = null;
          // Left in the channel on purpose: the next process finds the bot there and resumes.
          await g.link?.close({ stay: true });
        } catch (err) {
          this.o.logger.warn({ err, guildId }, 'recording not ended cleanly at shutdown');
        }
      }),
    );
    // Uploads still running stop here; their files stay and the next start hands them over.
    this.core.tracks.stop();
    await this.client.destroy();
  }

  /** Guild ids this replica holds, and its recordings (for status and tests). */
  summary(): { guilds: string[]; recordings: { guildId: string; transcriptId: string }[] } {
    return {
      guilds: [...this.client.guilds.cache.keys()],
      recordings: this.core
        .allGuildVoices()
        .flatMap(([guildId, g]) =>
          g.recording ? [{ guildId, transcriptId: g.recording.state.transcript_id }] : [],
        ),
    };
  }
}
