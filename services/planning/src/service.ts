import { AiConfigSchema, startAiEngine } from '@chronicler/ai';
import {
  GROUP_EVENTS_STREAM,
  groupDeletedEvent,
  groupEventsStream,
  planningHistoryRpc,
  planningSendRpc,
} from '@chronicler/contracts';
import { consume, defineService, packageVersion, serve } from '@chronicler/kit';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PlanningStore } from './db/store.ts';
import { onGroupDeleted } from './handlers/group-deleted.ts';
import { history } from './handlers/history.ts';
import { send } from './handlers/send.ts';

export default defineService({
  name: 'planning',
  version: packageVersion(import.meta.url),
  config: AiConfigSchema,
  migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations'),
  async start(ctx) {
    const store = new PlanningStore(ctx.db, ctx.schema);
    const engine = await startAiEngine(ctx.config, { bus: ctx.bus, coord: ctx.coord, logger: ctx.logger });
    const subs = [
      serve(ctx.bus, planningHistoryRpc, history(store, ctx.bus)),
      serve(ctx.bus, planningSendRpc, send(store, ctx.bus, engine, ctx.logger)),
    ];
    // The group service owns the stream; ensuring it here too (idempotent) lets either start first.
    await ctx.bus.ensureStream(groupEventsStream);
    const consumer = await consume(
      ctx.bus,
      {
        stream: GROUP_EVENTS_STREAM,
        durable: 'planning-group-deleted',
      },
      groupDeletedEvent,
      onGroupDeleted(store, ctx.logger),
    );
    return {
      async stop() {
        await consumer.stop();
        await Promise.all(subs.map((s) => s.unsubscribe()));
      },
    };
  },
});
