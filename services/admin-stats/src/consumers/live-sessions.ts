import {
  LiveSessionEndSchema,
  LiveSessionStartSchema,
  liveSubject,
  type BusEvent,
  type LiveSessionEnd,
  type LiveSessionStart,
} from '@chronicler/contracts';
import type { DurableContext, Logger } from '@chronicler/kit';
import type { UsageStore } from '../db/store.ts';

/**
 * The live events this service follows, as events of the kit's `consume` (one subject filter
 * per durable: nats-server 2.9 takes only one). Starts and ends come from LIVE (kept 7 days, so
 * a new durable replays both consistently): the pipeline's end, or the transcript service's
 * for a session whose feed stopped.
 */
export const liveStartAll: BusEvent<typeof LiveSessionStartSchema> = {
  subject: liveSubject.start('*'),
  payload: LiveSessionStartSchema,
};
export const liveEndAll: BusEvent<typeof LiveSessionEndSchema> = {
  subject: liveSubject.end('*'),
  payload: LiveSessionEndSchema,
};

function time(value: string, field: string): Date {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new Error(`${field} is not a time: ${JSON.stringify(value)}`);
  return d;
}

/** live.*.start (durable): the session is active from its start time. Idempotent by transcript id. */
export const onLiveSessionStarted =
  (store: UsageStore, logger: Logger) =>
  async (start: LiveSessionStart, ctx: DurableContext): Promise<void> => {
    await store.liveSessionStarted(start.transcript_id, start.owner_id, time(start.started_at, 'started_at'));
    logger.debug({ transcript_id: start.transcript_id, seq: ctx.seq }, 'live session started');
  };

/** live.*.end (durable): the session is no longer active; the first end counts. */
export const onLiveSessionEnded =
  (store: UsageStore, logger: Logger) =>
  async (end: LiveSessionEnd, ctx: DurableContext): Promise<void> => {
    await store.liveSessionEnded(end.transcript_id, '', time(end.ended_at, 'ended_at'));
    logger.debug({ transcript_id: end.transcript_id, subject: ctx.subject }, 'live session ended');
  };
