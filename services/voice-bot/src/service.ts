import { serviceStateRpc, type ServiceState } from '@chronicler/contracts';
import { defineService, packageVersion, serve } from '@chronicler/kit';
import {
  createStreamGate,
  createStreamingProvider,
  speechConfigProblems,
  streamLimits,
} from '@chronicler/speech';
import path from 'node:path';
import { handoverWaitMs, limitsOf, shardIdsOf, VoiceBotConfigSchema } from './config.ts';
import { GatewayRefused, VoiceBot } from './discord/bot.ts';
import { discordVoiceReceiver } from './discord/voice.ts';
import { TableLive } from './table/table-live.ts';

export { VoiceBotConfigSchema } from './config.ts';
export { VoiceBot } from './discord/bot.ts';
// The receive path as it runs in production, for `pnpm bench voice`.
export { discordVoiceReceiver } from './discord/voice.ts';

export default defineService({
  name: 'voice-bot',
  version: packageVersion(import.meta.url),
  config: VoiceBotConfigSchema,
  checkConfig: speechConfigProblems,
  async start(ctx) {
    const c = ctx.config;
    const provider = createStreamingProvider(c);
    // One gate for every shard of every replica: on the shared coordination (Redis in the cluster).
    const gate = createStreamGate(ctx.coord, streamLimits(c), {
      onHeartbeatError: (err) => ctx.logger.warn({ err }, 'speech stream lease not extended'),
    });
    const streamPolicy = {
      idleSeconds: c.LIVE_STREAM_IDLE_SECONDS > 0 ? c.LIVE_STREAM_IDLE_SECONDS : null,
      queueSeconds: c.LIVE_STREAM_QUEUE_SECONDS,
      retrySeconds: c.LIVE_STREAM_RETRY_SECONDS,
    };
    // Recordings at the table (a browser's microphone) go through the same pipeline, Discord or not.
    const table = new TableLive({ bus: ctx.bus, provider, gate, logger: ctx.logger, streamPolicy });
    if (!c.DISCORD_BOT_TOKEN) {
      const state: ServiceState = { status: 'idle', detail: 'no DISCORD_BOT_TOKEN' };
      const sub = serve(ctx.bus, serviceStateRpc('voice-bot'), () => state);
      ctx.logger.warn('voice bot idle: DISCORD_BOT_TOKEN is not set, so it connects to no Discord server');
      return {
        async stop() {
          await sub.unsubscribe();
          await table.stop();
        },
      };
    }
    const shardIds = c.SHARD_COUNT ? shardIdsOf(c, c.SHARD_COUNT) : [];
    // Discord's recommended count is logged once known (see VoiceBot.start).
    const logger = c.SHARD_COUNT ? ctx.logger.child({ shards: shardIds.join(',') }) : ctx.logger;
    const bot = new VoiceBot({
      token: c.DISCORD_BOT_TOKEN,
      applicationId: c.DISCORD_APPLICATION_ID ?? null,
      devGuildId: c.DISCORD_DEV_GUILD_ID ?? null,
      apiUrl: c.DISCORD_API_URL ?? null,
      publicUrl: c.PUBLIC_URL?.replace(/\/+$/, '') ?? null,
      recordingLinkTtlSeconds: c.RECORDING_LINK_TTL_HOURS * 3600,
      shardCount: c.SHARD_COUNT ?? null,
      shardIds,
      shardIdsFor: (count) => shardIdsOf(c, count),
      recordingsDir: path.resolve(c.RECORDINGS_DIR ?? path.join(ctx.platform.dataDir, 'recordings')),
      defaultName: c.LIVE_SESSION_DEFAULT_NAME,
      watchdogSeconds: c.VOICE_WATCHDOG_SECONDS,
      heartbeatSeconds: c.LIVE_HEARTBEAT_SECONDS,
      handoverWaitMs: handoverWaitMs(c, ctx.bus.kind),
      bus: ctx.bus,
      coord: ctx.coord,
      provider,
      gate,
      receiver: discordVoiceReceiver(logger),
      instance: ctx.instance,
      logger,
      limits: limitsOf(c),
      streamPolicy,
    });
    if (!provider) {
      logger.warn(
        'no speech provider configured: recordings are kept but not transcribed; set TRANSCRIPTION_BASE_URL, DEEPGRAM_API_KEY or ASSEMBLYAI_API_KEY',
      );
    }
    let state: ServiceState = { status: 'idle', detail: 'connecting to Discord' };
    const sub = serve(ctx.bus, serviceStateRpc('voice-bot'), () => state);
    // In the background: Discord being unreachable must not hold up the other services of an
    // embedded system (the gateway starts after this one). Retried with backoff until it works,
    // except for a token Discord refuses, which needs an operator.
    let stopped = false;
    const started = (async () => {
      for (let attempt = 1; !stopped; attempt++) {
        try {
          await bot.start();
          state = { status: 'up' };
          return;
        } catch (err) {
          // A token Discord refuses, or a close it means for good (4011: more shards needed).
          const refused =
            err instanceof GatewayRefused ||
            (err instanceof Error && /token/i.test(err.message) && /invalid/i.test(err.message));
          state = {
            status: 'idle',
            detail: `Discord login failed: ${String((err as Error).message ?? err).slice(0, 150)}`,
          };
          logger.error(
            { err, attempt },
            refused
              ? 'Discord refused the bot; staying idle until an operator acts'
              : 'could not connect to Discord; retrying',
          );
          if (refused) return;
          await new Promise((r) => setTimeout(r, Math.min(60_000, 2_000 * 2 ** Math.min(attempt - 1, 5))));
        }
      }
    })();
    return {
      async stop() {
        stopped = true;
        await sub.unsubscribe();
        await bot.stop();
        await table.stop();
        // A start still waiting for Discord gives up with the client destroyed.
        await Promise.race([started, new Promise((r) => setTimeout(r, 1000).unref())]);
      },
    };
  },
});
