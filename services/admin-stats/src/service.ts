import {
  aiRequestRecordedEvent,
  transcriptionRecordedEvent,
  USAGE_EVENTS_STREAM,
  usageEventsStream,
  userStatsRpc,
} from '@chronicler/contracts';
import { consume, defineService, packageVersion, serve } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onAiRequestRecorded } from './consumers/ai-request-recorded.ts';
import { onTranscriptionRecorded } from './consumers/transcription-recorded.ts';
import { UsageStore } from './db/store.ts';
import { userStats } from './handlers/user-stats.ts';

export default defineService({
  name: 'admin-stats',
  version: packageVersion(import.meta.url),
  config: Type.Object({}),
  migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations'),
  async start(ctx) {
    const store = new UsageStore(ctx.db, ctx.schema);
    // Producers ensure the stream too (idempotent), so either side may start first.
    await ctx.bus.ensureStream(usageEventsStream);
    const subs = [serve(ctx.bus, userStatsRpc, userStats(store))];
    const consumer = await consume(
      ctx.bus,
      {
        stream: USAGE_EVENTS_STREAM,
        durable: 'admin-stats-transcription-usage',
        // Inserts are independent and idempotent; a few at once drain a backlog faster.
        concurrency: 4,
      },
      transcriptionRecordedEvent,
      onTranscriptionRecorded(store, ctx.logger),
    );
    const aiConsumer = await consume(
      ctx.bus,
      {
        stream: USAGE_EVENTS_STREAM,
        durable: 'admin-stats-ai-requests',
        concurrency: 4,
      },
      aiRequestRecordedEvent,
      onAiRequestRecorded(store, ctx.logger),
    );
    return {
      async stop() {
        await Promise.all([consumer.stop(), aiConsumer.stop()]);
        await Promise.all(subs.map((s) => s.unsubscribe()));
      },
    };
  },
});
