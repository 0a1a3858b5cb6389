import {
  LIVE_STREAM,
  LiveSessionEndSchema,
  LiveSessionStartSchema,
  LiveUtteranceSchema,
  liveMsgId,
  liveSubject,
  summaryMsgId,
  transcriptionRecordedEvent,
  transcriptReadyForSummaryEvent,
  type LiveLineStored,
  type LiveSessionClosed,
  type TranscriptionRecorded,
} from '@chronicler/contracts';
import {
  assertValid,
  liveLinesStored,
  RetryLater,
  type Bus,
  type Consumer,
  type DurableContext,
  type Logger,
} from '@chronicler/kit';
import type { LiveStore } from '../db/live-store.ts';

/** Finals stored at once across sessions (each session serialises on its own row). */
const CONCURRENCY = 16;
/**
 * Deliveries a final (or an end) waits for the finals before it before it may go on without
 * them: about 20 s (naks back off 250 ms doubling, capped at 2 s), and then only if the
 * session has stalled (see STALL_SECONDS). The cap keeps a backlog draining: after a restart
 * dozens of finals of one session arrive together in any order, and each waits only about as
 * long as the one before it takes. The patience is counted in time, never against a final
 * that is merely queued behind others, so lines stay in the order they were spoken.
 */
const PATIENCE = 12;
/** Dead-lettered only after minutes of failing (a database down that long). */
const MAX_DELIVER = 120;

/** A message that cannot be handled yet (its start is not stored, finals still coming). */
class NotYet extends RetryLater {}

/**
 * Consumes the LIVE stream: session starts create the transcript, finals become lines with
 * the next seq (exactly once: unique per transcript and utterance), ends close the session.
 * Each stored line and each close is re-published on LIVE_OUT for live-fanout, after the
 * commit: a crash in between redelivers the message, which finds the line stored and
 * publishes it again (de-duplicated by its msgId).
 */
export async function startLiveConsumer(opts: {
  bus: Bus;
  store: LiveStore;
  logger: Logger;
}): Promise<Consumer> {
  const { bus, store, logger } = opts;

  async function onStart(payload: unknown): Promise<void> {
    assertValid(LiveSessionStartSchema, payload, 'live session start');
    if (!(await store.start(payload))) {
      logger.error(
        { transcriptId: payload.transcript_id },
        'live session start names a transcript of another owner; ignored',
      );
    }
  }

  async function onFinal(payload: unknown, ctx: DurableContext): Promise<void> {
    assertValid(LiveUtteranceSchema, payload, 'live final utterance');
    // After PATIENCE deliveries, in a stalled session, the finals before it are taken as lost
    // (the pipeline died before publishing them): better a line out of place than a session stuck.
    const result = await store.append(payload, ctx.deliveryCount >= PATIENCE);
    if (result.kind === 'not-started')
      throw new NotYet(`session ${payload.transcript_id} has not started yet`);
    if (result.kind === 'out-of-order') {
      throw new NotYet(`final ${payload.final_index} waits for the ones before it (${result.stored} stored)`);
    }
    if (result.kind === 'stored') liveLinesStored.inc();
    const out: LiveLineStored = {
      transcript_id: payload.transcript_id,
      owner_id: result.session.ownerId,
      session_start_time: result.session.startedAt,
      line: result.line,
    };
    await bus.publishDurable(liveSubject.line(payload.transcript_id), out, {
      msgId: liveMsgId.line(payload.transcript_id, result.line.seq),
    });
  }

  async function onEnd(payload: unknown, ctx: DurableContext): Promise<void> {
    assertValid(LiveSessionEndSchema, payload, 'live session end');
    const result = await store.end(payload, ctx.deliveryCount >= PATIENCE);
    if (result.kind === 'not-started')
      throw new NotYet(`session ${payload.transcript_id} has not started yet`);
    if (result.kind === 'waiting') {
      throw new NotYet(`session end waits for finals: ${result.stored} of ${result.expected} stored`);
    }
    const { session } = result;
    if (result.kind === 'ended' && session.finalCount < payload.final_count) {
      logger.warn(
        { transcriptId: session.transcriptId, stored: session.finalCount, published: payload.final_count },
        'live session closed without every final the pipeline published',
      );
    }
    const closed: LiveSessionClosed = {
      transcript_id: session.transcriptId,
      owner_id: session.ownerId,
      session_start_time: session.startedAt,
      ended_at: session.endedAt ?? payload.ended_at,
      last_seq: session.finalCount,
      name: session.name,
      ...(session.error ? { error: session.error } : {}),
    };
    await bus.publishDurable(liveSubject.closed(session.transcriptId), closed, {
      msgId: liveMsgId.closed(session.transcriptId),
    });
    const seconds = Math.max(0, (Date.parse(closed.ended_at) - Date.parse(session.startedAt)) / 1000);
    const usage: TranscriptionRecorded = {
      record_id: `live:${session.transcriptId}`,
      owner_id: session.ownerId,
      transcript_id: session.transcriptId,
      source: 'live',
      provider: session.provider,
      seconds,
      recorded_at: closed.ended_at,
    };
    await bus.publishDurable(transcriptionRecordedEvent.subject, usage, { msgId: usage.record_id });
    if (session.finalCount > 0) {
      await bus.publishDurable(
        transcriptReadyForSummaryEvent.subject,
        { owner_id: session.ownerId, transcript_id: session.transcriptId },
        { msgId: summaryMsgId(session.transcriptId) },
      );
    }
  }

  return bus.consume(
    {
      stream: LIVE_STREAM,
      durable: 'transcript-live',
      concurrency: CONCURRENCY,
      maxDeliver: MAX_DELIVER,
      backoffMs: 250,
      maxBackoffMs: 2_000,
      // One transaction per message: a replica killed mid-message has it redelivered this soon,
      // which is how long the live view of its sessions can stall.
      ackWaitMs: 5_000,
    },
    async (payload, ctx) => {
      // A NotYet comes back after the backoff; the bus logs it at debug (RetryLater).
      const kind = ctx.subject.slice(ctx.subject.lastIndexOf('.') + 1);
      if (kind === 'start') await onStart(payload);
      else if (kind === 'final') await onFinal(payload, ctx);
      else if (kind === 'end') await onEnd(payload, ctx);
      else logger.warn({ subject: ctx.subject }, 'unknown live message; ignored');
    },
  );
}
