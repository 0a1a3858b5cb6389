import { discordGatewayFatalCloses, type Consumer } from '@chronicler/kit';
import { Client, Events, GatewayIntentBits, Routes, type RESTGetAPIGatewayBotResult } from 'discord.js';
import { onInteraction } from './commands/index.ts';
import { COMMANDS } from './commands/definitions.ts';
import { BotCore, type VoiceBotOptions } from './core.ts';
import { AutoRecorder } from './auto-record.ts';
import { GuildDirectories } from './directory.ts';
import { waitForSuccessor } from './handover.ts';
import { reportPodLoad } from './limits.ts';
import { onVoiceState } from './presence.ts';
import { startRecapPosts } from './recap-post.ts';
import { recover } from './recovery.ts';
import { SettingsCache } from './settings-cache.ts';
import { TrackUploader } from './track-upload.ts';

export type { VoiceBotOptions } from './core.ts';

/** Gateway closes Discord means for good: retrying cannot help, an operator must act. */
const FATAL_CLOSES = new Map<number, string>([
  [4004, 'authentication failed'],
  [4010, 'invalid shard'],
  [4011, 'sharding required: more shards are needed (SHARD_COUNT, or leave it unset)'],
  [4012, 'invalid API version'],
  [4013, 'invalid intents'],
  [4014, 'disallowed intents'],
]);

/** Discord refused the bot's gateway session for good (the close code), or it has no shard. */
export class GatewayRefused extends Error {
  constructor(
    readonly code: number,
    reason = FATAL_CLOSES.get(code) ?? 'refused',
  ) {
    super(code ? `Discord closed the gateway with ${code}: ${reason}` : reason);
  }
}

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
  /** Each server's channels and roles, for the settings page. */
  private readonly directories: GuildDirectories;

  constructor(private readonly o: VoiceBotOptions) {
    this.client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildVoiceStates],
      // Set by start() once the count is known.
      shards: o.shardCount === null ? 'auto' : o.shardIds,
      ...(o.shardCount === null ? {} : { shardCount: o.shardCount }),
      ...(o.apiUrl ? { rest: { api: o.apiUrl } } : {}),
    });
    const tracks = new TrackUploader({ bus: o.bus, recordingsDir: o.recordingsDir, logger: o.logger });
    const settings = new SettingsCache(o.bus, o.logger, (guildId) => {
      const guild = this.client.guilds.cache.get(guildId);
      if (guild) void this.auto.check(guild);
    });
    this.core = new BotCore(o, this.client, tracks, settings);
    this.auto = new AutoRecorder(this.core);
    this.directories = new GuildDirectories(this.client, o.coord, o.logger);
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
    await this.resolveShards();
    // A close Discord means for good (4011 sharding required, 4004 bad token...) fails the start
    // instead of waiting for a ready that never comes; the library does not retry those.
    let onClose: ((e: { code: number }, id: number) => void) | null = null;
    const ready = new Promise<void>((resolve, reject) => {
      this.client.once(Events.ClientReady, () => resolve());
      onClose = (e, id) => {
        if (!FATAL_CLOSES.has(e.code)) return;
        discordGatewayFatalCloses.inc({ code: String(e.code) });
        log.error(
          { shard: id, code: e.code, reason: FATAL_CLOSES.get(e.code) },
          'Discord closed the gateway for good; not retrying',
        );
        reject(new GatewayRefused(e.code));
      };
      this.client.on(Events.ShardDisconnect, onClose);
    });
    try {
      await Promise.all([this.client.login(this.o.token), ready]);
    } catch (err) {
      // Leaves the client as new, for the next attempt.
      await this.client.destroy().catch(() => {});
      throw err;
    } finally {
      if (onClose) this.client.off(Events.ShardDisconnect, onClose);
    }
    this.core.settings.start();
    this.directories.start();
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
    reportPodLoad(this.core);
    // Rules whose channel is already full when the bot comes up.
    for (const guild of this.client.guilds.cache.values()) void this.auto.check(guild);
    this.recaps ??= await startRecapPosts(this.core);
  }

  /**
   * The shard count, when not configured: Discord's recommendation for this bot (its identify
   * concurrency, `max_concurrency`, is honoured by discord.js's identify throttler).
   */
  private async resolveShards(): Promise<void> {
    if (this.o.shardCount !== null) return;
    this.client.rest.setToken(this.o.token);
    const info = (await this.client.rest.get(Routes.gatewayBot())) as RESTGetAPIGatewayBotResult;
    this.o.shardCount = info.shards;
    this.o.shardIds = this.o.shardIdsFor(info.shards);
    this.client.options.shardCount = info.shards;
    this.client.options.shards = this.o.shardIds;
    this.o.logger.info(
      {
        shardCount: info.shards,
        shards: this.o.shardIds,
        maxConcurrency: info.session_start_limit.max_concurrency,
      },
      'shard count from Discord',
    );
    if (this.o.shardIds.length === 0) throw new GatewayRefused(0, 'no shard for this replica');
  }

  /**
   * A shutdown (a deploy): hands every recording over (each stream flushed, each final on the
   * bus, the session left open in session.json for the process that takes the shard over),
   * leaves voice, logs out.
   */
  async stop(): Promise<void> {
    this.core.stopping = true;
    this.auto.stop();
    this.directories.stop();
    await this.core.settings.stop();
    await this.recaps?.stop();
    this.recaps = null;
    await Promise.all(
      this.core.allGuildVoices().map(async ([guildId, g]) => {
        try {
          const rec = g.recording;
          // Recording on while a successor may come for it (a deploy that starts the next
          // process first, or soon): then it goes over without a gap (handover.ts).
          if (rec) await waitForSuccessor(rec, this.o.handoverWaitMs ?? 0);
          if (rec && g.recording !== rec) return;
          await rec?.handOver();
          g.recording = null;
          // Discord drops the voice state with the gateway session anyway; the next process joins again.
          await g.link?.close();
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
