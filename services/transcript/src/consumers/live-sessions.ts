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
import { assertValid, type Bus, type Consumer, type DurableContext, type Logger } from '@chronicler/kit';
import type { LiveStore } from '../db/live-store.ts';

/** Finals stored at once across sessions (each session serialises on its own row). */
const CONCURRENCY = 16;
/**
 * Deliveries an end (or a final) waits for missing finals before it goes on without them.
 * Naks back off 250 ms doubling: the eighth delivery comes about 30 s after the first, long
 * after a killed replica's unacked message (5 s ack wait) is back, even on a loaded machine.
 */
const END_PATIENCE = 8;
const MAX_DELIVER = 10;

/** A message that cannot be handled yet (its start is not stored, finals still coming). */
class NotYet extends Error {}

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
    // After END_PATIENCE deliveries the finals before it are taken as lost (the pipeline
    // died before publishing them): better a line out of place than a session stuck.
    const result = await store.append(payload, ctx.deliveryCount >= END_PATIENCE);
    if (result.kind === 'not-started')
      throw new NotYet(`session ${payload.transcript_id} has not started yet`);
    if (result.kind === 'out-of-order') {
      throw new NotYet(`final ${payload.final_index} waits for the ones before it (${result.stored} stored)`);
    }
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
    const result = await store.end(payload, ctx.deliveryCount >= END_PATIENCE);
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
      // One transaction per message: a replica killed mid-message has it redelivered this soon,
      // which is how long the live view of its sessions can stall.
      ackWaitMs: 5_000,
    },
    async (payload, ctx) => {
      const kind = ctx.subject.slice(ctx.subject.lastIndexOf('.') + 1);
      try {
        if (kind === 'start') await onStart(payload);
        else if (kind === 'final') await onFinal(payload, ctx);
        else if (kind === 'end') await onEnd(payload, ctx);
        else logger.warn({ subject: ctx.subject }, 'unknown live message; ignored');
      } catch (err) {
        if (err instanceof NotYet)
          logger.debug({ subject: ctx.subject, reason: err.message }, 'live message retried later');
        throw err;
      }
    },
  );
}
