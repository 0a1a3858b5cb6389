import { AiConfigSchema, startAiEngine } from '@chronicler/ai';
import {
  characterRecapRpc,
  previouslyRpc,
  refreshCodexRpc,
  summaryReadyEvent,
  checkGroupDueRpc,
  checkGroupSummaryRpc,
  generateGroupSummaryRpc,
  generateSessionSummaryRpc,
  speakerRemovedEvent,
  TRANSCRIPT_EVENTS_STREAM,
  transcriptEventsStream,
  transcriptReadyForSummaryEvent,
} from '@chronicler/contracts';
import {
  consume,
  defineService,
  Env,
  packageVersion,
  pacedSlots,
  serve,
  ServiceError,
  type DurableContext,
} from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CodexKeeper } from './codex/keeper.ts';
import { onReadyForSummary, READY_MAX_DELIVER } from './consumers/ready-for-summary.ts';
import { SummaryStore } from './db/store.ts';
import { RecapOnce } from './recap-once.ts';
import { generateSession } from './handlers/generate-session.ts';
import { checkDue, checkGroup, generateGroup } from './handlers/group-summary.ts';
import { characterRecap, previously } from './handlers/stories.ts';

/**
 * Automatic summaries and codex readings: each consumer's slots rest twice as long as a job took
 * before the next (the kit's pacedSlots, at most 2 s): at most a third of each slot's time,
 * beside `nice` below.
 */
const BACKGROUND_REST = 2;
const BACKGROUND_MAX_REST_MS = 2_000;

/**
 * A durable handler run through `slots` paced slots (the consumer's concurrency); a message that
 * waits for one keeps its ack deadline.
 */
function paced<P>(slots: number, handler: (payload: P, dctx: DurableContext) => Promise<void>) {
  const run = pacedSlots(slots, BACKGROUND_REST, { maxRestMs: BACKGROUND_MAX_REST_MS });
  return (payload: P, dctx: DurableContext): Promise<void> =>
    run(
      () => handler(payload, dctx),
      () => dctx.working(),
    );
}

export default defineService({
  name: 'summary',
  version: packageVersion(import.meta.url),
  // Summaries and the codex are batch work: 200 sessions ending together wait for spare CPU on a
  // shared host instead of taking it from the lines still flowing to viewers.
  nice: 10,
  config: Type.Composite([
    AiConfigSchema,
    Type.Object({
      /**
       * Summarise ended sessions that have none, and refresh campaign summaries when their
       * sessions change. Off: summaries are made only when someone asks (saves AI cost).
       */
      SUMMARY_AUTOMATIC: Env.bool(true),
    }),
  ]),
  migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations'),
  async start(ctx) {
    const engine = await startAiEngine(ctx.config, { bus: ctx.bus, coord: ctx.coord, logger: ctx.logger });
    const store = new SummaryStore(ctx.db, ctx.schema);
    const deps = {
      bus: ctx.bus,
      coord: ctx.coord,
      engine,
      store,
      automatic: ctx.config.SUMMARY_AUTOMATIC,
      logger: ctx.logger,
    };
    const sessionDeps = { bus: ctx.bus, engine, recaps: new RecapOnce(store, ctx.coord), logger: ctx.logger };
    const keeper = new CodexKeeper({ bus: ctx.bus, coord: ctx.coord, engine, logger: ctx.logger });
    const storyDeps = { bus: ctx.bus, engine, store, logger: ctx.logger };
    const subs = [
      serve(ctx.bus, refreshCodexRpc, (req) => keeper.refresh(req.owner_id, req.id, req.wait ?? false)),
      serve(ctx.bus, characterRecapRpc, characterRecap(storyDeps)),
      serve(ctx.bus, previouslyRpc, previously(storyDeps)),
      serve(ctx.bus, generateSessionSummaryRpc, generateSession(sessionDeps)),
      serve(ctx.bus, generateGroupSummaryRpc, generateGroup(deps)),
      serve(ctx.bus, checkGroupSummaryRpc, checkGroup(deps)),
      serve(ctx.bus, checkGroupDueRpc, checkDue(deps)),
    ];
    // The transcript service owns the stream; ensuring it here too (idempotent) lets either start first.
    await ctx.bus.ensureStream(transcriptEventsStream);
    // Off: the consumer does not run, and sessions wait in the stream (kept for its max age)
    // until automatic summaries are turned on again.
    const consumer = ctx.config.SUMMARY_AUTOMATIC
      ? await consume(
          ctx.bus,
          {
            stream: TRANSCRIPT_EVENTS_STREAM,
            durable: 'summary-ready-for-summary',
            // A summary waits on the model for up to a couple of minutes; the handler heartbeats.
            ackWaitMs: 60_000,
            maxDeliver: READY_MAX_DELIVER,
            concurrency: 2,
            backoffMs: 5_000,
          },
          transcriptReadyForSummaryEvent,
          paced(2, onReadyForSummary(sessionDeps, ctx.logger)),
        )
      : null;
    // After each session (ended, or summarised), its campaign's codex reads what is new. The
    // keeper is idempotent per content version: a second event for the same text reads nothing.
    const codexConsumers = ctx.config.SUMMARY_AUTOMATIC
      ? await Promise.all(
          (
            [
              ['summary-codex-ended', transcriptReadyForSummaryEvent],
              ['summary-codex-summarised', summaryReadyEvent],
            ] as const
          ).map(([durable, event]) =>
            consume(
              ctx.bus,
              {
                stream: TRANSCRIPT_EVENTS_STREAM,
                durable,
                ackWaitMs: 60_000,
                maxDeliver: 4,
                concurrency: 1,
                backoffMs: 5_000,
              },
              event,
              paced(
                1,
                async ({ owner_id, transcript_id }: { owner_id: string; transcript_id: string }, dctx) => {
                  const heartbeat = setInterval(() => dctx.working(), 10_000);
                  try {
                    await keeper.refreshSession(owner_id, transcript_id);
                  } catch (err) {
                    // The session or its campaign is gone: nothing left to read.
                    if (!(ServiceError.is(err) && err.code === 'not_found')) throw err;
                  } finally {
                    clearInterval(heartbeat);
                  }
                },
              ),
            ),
          ),
        )
      : [];
    // A member's part of a session was removed: the recap made from it goes (the transcript
    // service asks for a new summary of what is left).
    const removals = await consume(
      ctx.bus,
      { stream: TRANSCRIPT_EVENTS_STREAM, durable: 'summary-speaker-removed' },
      speakerRemovedEvent,
      async ({ transcript_id }) => {
        await store.dropRecap(transcript_id);
      },
    );
    return {
      async stop() {
        await removals.stop();
        await Promise.all(codexConsumers.map((c) => c.stop()));
        await consumer?.stop();
        await Promise.all(subs.map((s) => s.unsubscribe()));
      },
    };
  },
});
