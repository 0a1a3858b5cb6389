import {
  adminAiCostsWeeklyRpc,
  sessionUsageRpc,
  adminAiRequestsRpc,
  adminStatsRpc,
  adminTranscriptionHoursRpc,
  adminUserMetricsRpc,
  aiRequestRecordedEvent,
  countUsersRpc,
  LIVE_STREAM,
  liveStream,
  speechStreamRecordedEvent,
  transcriptAdminCountsRpc,
  transcriptionRecordedEvent,
  USAGE_EVENTS_STREAM,
  usageEventsStream,
  userStatsRpc,
} from '@chronicler/contracts';
import { call, consume, defineService, packageVersion, serve } from '@chronicler/kit';
import { createStreamGate, SpeechConfigSchema, streamLimits } from '@chronicler/speech';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import { onAiRequestRecorded } from './consumers/ai-request-recorded.ts';
import {
  liveEndAll,
  liveStartAll,
  onLiveSessionEnded,
  onLiveSessionStarted,
} from './consumers/live-sessions.ts';
import { onSpeechStreamRecorded } from './consumers/speech-stream-recorded.ts';
import { onTranscriptionRecorded } from './consumers/transcription-recorded.ts';
import { UsageStore } from './db/store.ts';
import { adminStats } from './handlers/admin-stats.ts';
import { aiCostsWeekly } from './handlers/ai-costs-weekly.ts';
import { aiRequests } from './handlers/ai-requests.ts';
import { transcriptionHoursPerDay } from './handlers/transcription-hours.ts';
import { userMetrics } from './handlers/user-metrics.ts';
import { userStats } from './handlers/user-stats.ts';
import { sessionUsage } from './handlers/session-usage.ts';

/**
 * The speech settings (for the stream gate's limits), under the same variable names as the
 * services that use them, so one setting serves every service. AI costs are the ones each
 * request recorded, priced where it ran.
 */
export const AdminStatsConfigSchema = Type.Composite([
  SpeechConfigSchema,
  Type.Object({
    /** What a minute of speech-to-text costs (one speaker stream of a live session, or of a recording). */
    SPEECH_PRICE_PER_MINUTE_USD: Type.Number({ default: 0, minimum: 0 }),
  }),
]);

export default defineService({
  name: 'admin-stats',
  version: packageVersion(import.meta.url),
  // Usage counts can wait: on a shared host they give way to live lines and requests.
  nice: 10,
  config: AdminStatsConfigSchema,
  migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations'),
  async start(ctx) {
    const store = new UsageStore(ctx.db, ctx.schema);
    // Producers ensure the streams too (idempotent), so either side may start first.
    await ctx.bus.ensureStream(usageEventsStream);
    await ctx.bus.ensureStream(liveStream);
    const gate = createStreamGate(ctx.coord, streamLimits(ctx.config));
    const subs = [
      serve(ctx.bus, userStatsRpc, userStats(store)),
      serve(
        ctx.bus,
        adminStatsRpc,
        adminStats(store, {
          transcripts: (sinceDay) => call(ctx.bus, transcriptAdminCountsRpc, { since_day: sinceDay }),
          users: async () => (await call(ctx.bus, countUsersRpc, {})).total,
          streams: () => gate.counts(),
        }),
      ),
      serve(ctx.bus, adminAiRequestsRpc, aiRequests(store, ctx.bus, ctx.logger)),
      serve(ctx.bus, adminTranscriptionHoursRpc, transcriptionHoursPerDay(store)),
      serve(ctx.bus, adminAiCostsWeeklyRpc, aiCostsWeekly(store)),
      serve(ctx.bus, adminUserMetricsRpc, userMetrics(store)),
      serve(ctx.bus, sessionUsageRpc, sessionUsage(store, ctx.config.SPEECH_PRICE_PER_MINUTE_USD)),
    ];
    const consumers = [
      await consume(
        ctx.bus,
        {
          stream: USAGE_EVENTS_STREAM,
          durable: 'admin-stats-transcription-usage',
          // Inserts are independent and idempotent; a few at once drain a backlog faster.
          concurrency: 4,
        },
        transcriptionRecordedEvent,
        onTranscriptionRecorded(store, ctx.logger),
      ),
      await consume(
        ctx.bus,
        { stream: USAGE_EVENTS_STREAM, durable: 'admin-stats-speech-streams', concurrency: 4 },
        speechStreamRecordedEvent,
        onSpeechStreamRecorded(store, ctx.logger),
      ),
      await consume(
        ctx.bus,
        { stream: USAGE_EVENTS_STREAM, durable: 'admin-stats-ai-requests', concurrency: 4 },
        aiRequestRecordedEvent,
        onAiRequestRecorded(store, ctx.logger),
      ),
      // Upserts keyed by transcript id in which the first end wins: order between the two
      // consumers does not matter, so they run side by side.
      await consume(
        ctx.bus,
        { stream: LIVE_STREAM, durable: 'admin-stats-live-start', concurrency: 4 },
        liveStartAll,
        onLiveSessionStarted(store, ctx.logger),
      ),
      await consume(
        ctx.bus,
        { stream: LIVE_STREAM, durable: 'admin-stats-live-end', concurrency: 4 },
        liveEndAll,
        onLiveSessionEnded(store, ctx.logger),
      ),
    ];
    return {
      async stop() {
        await Promise.all(consumers.map((c) => c.stop()));
        await Promise.all(subs.map((s) => s.unsubscribe()));
      },
    };
  },
});
