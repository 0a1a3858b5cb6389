import { AiConfigSchema, startAiEngine } from '@chronicler/ai';
import {
  GROUP_EVENTS_STREAM,
  groupDeletedEvent,
  groupEventsStream,
  LIVE_STREAM,
  liveStream,
  planningHistoryRpc,
  planningSendRpc,
  prepCarryRpc,
  prepCreateRpc,
  prepDeleteRpc,
  prepListRpc,
  parseLiveSubject,
  prepUpdateRpc,
} from '@chronicler/contracts';
import { consume, defineService, keyedSequence, packageVersion, serve } from '@chronicler/kit';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onLivePrep } from './consumers/live-prep.ts';
import { PrepStore } from './db/prep-store.ts';
import { PlanningStore } from './db/store.ts';
import { onGroupDeleted } from './handlers/group-deleted.ts';
import { history } from './handlers/history.ts';
import { prepHandlers } from './handlers/prep.ts';
import { send } from './handlers/send.ts';

/** LIVE messages handled at once across sessions (each session's in order). */
const LIVE_PREP_CONCURRENCY = 16;

export default defineService({
  name: 'planning',
  version: packageVersion(import.meta.url),
  config: AiConfigSchema,
  migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations'),
  async start(ctx) {
    const store = new PlanningStore(ctx.db, ctx.schema);
    const prep = new PrepStore(ctx.db, ctx.schema);
    const prepApi = prepHandlers(prep, ctx.bus);
    const engine = await startAiEngine(ctx.config, { bus: ctx.bus, coord: ctx.coord, logger: ctx.logger });
    const subs = [
      serve(ctx.bus, planningHistoryRpc, history(store, ctx.bus)),
      serve(ctx.bus, planningSendRpc, send(store, prep, ctx.bus, engine, ctx.logger)),
      serve(ctx.bus, prepListRpc, prepApi.list),
      serve(ctx.bus, prepCreateRpc, prepApi.create),
      serve(ctx.bus, prepUpdateRpc, prepApi.update),
      serve(ctx.bus, prepDeleteRpc, prepApi.delete),
      serve(ctx.bus, prepCarryRpc, prepApi.carry),
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
      onGroupDeleted(store, prep, ctx.logger),
    );
    // Live sessions tick the prep of their group (see consumers/live-prep.ts).
    await ctx.bus.ensureStream(liveStream);
    const onLive = onLivePrep(prep, ctx.bus, ctx.logger);
    // Each session's messages one after another in the order of the stream (a start before its
    // finals, each final after the one before), sessions side by side. One message at a time in
    // all cost a pull (subscribe, request, unsubscribe) and a confirmed ack per line of every
    // live session: about a tenth of a core at 83 lines a second, most of it socket writes.
    const inOrder = keyedSequence();
    const livePrep = await ctx.bus.consume(
      {
        stream: LIVE_STREAM,
        durable: 'planning-prep',
        concurrency: LIVE_PREP_CONCURRENCY,
        maxDeliver: 5,
        backoffMs: 500,
      },
      (payload, meta) => {
        const live = parseLiveSubject(meta.subject);
        return live ? inOrder(live.transcriptId, () => onLive(payload, meta)) : onLive(payload, meta);
      },
    );
    return {
      async stop() {
        await livePrep.stop();
        await consumer.stop();
        await Promise.all(subs.map((s) => s.unsubscribe()));
      },
    };
  },
});
