import {
  fannedOutFromLive,
  finalDelivery,
  LIVE_STREAM,
  LiveSessionEndSchema,
  LiveSessionStartSchema,
  LiveUtteranceSchema,
  liveSubject,
  parseLiveSubject,
  sessionEndDelivery,
  type FanoutDelivery,
  type LiveLine,
} from '@chronicler/contracts';
import {
  assertValid,
  keyedSequence,
  liveLinesStored,
  pacedSlots,
  RetryLater,
  type Bus,
  type Consumer,
  type Coordination,
  type DurableContext,
  type EventOutbox,
  type Logger,
} from '@chronicler/kit';
import { Type, type Static } from '@sinclair/typebox';
import type { LiveSessionRow } from '../db/live-rows.ts';
import { GAP_SECONDS_DEFAULT, LiveStore } from '../db/live-store.ts';
import { lockedSweep } from './locked-sweep.ts';

/** Part of the transcript service's configuration (see service.ts). */
export const LiveGapConfigSchema = Type.Object({
  /** A gap in a live session's finals open this long (no line stored meanwhile) is closed as lost. */
  LIVE_GAP_SECONDS: Type.Number({ default: GAP_SECONDS_DEFAULT, minimum: 0.1 }),
});

/**
 * Messages handled at once across sessions (each session's go one after another, see below).
 * An end waiting for its close (END_SLOTS) holds its message's slot: with 16, a burst of 200
 * ends held every slot and the finals of the sessions still going waited seconds to be stored.
 * The slots are many, so a burst of that size leaves room for the finals; a slot costs nothing
 * while no message holds it, and PostgreSQL's pool bounds the work done at once.
 */
const CONCURRENCY = 256;
/**
 * Session ends closed at a time on this replica, and how long each slot rests after a close
 * (times the close's own time): closing writes the session's content, its usage and summary
 * events, and the viewers' end, which for 200 sessions ending within a second took every core
 * from the lines still flowing. Paced, they close a few at a time; an end waits its turn (its
 * viewers are told when it is closed), the finals of other sessions do not (up to CONCURRENCY
 * messages in flight).
 */
const END_SLOTS = 2;
const END_REST = 2;
/** A close that took long (a database under load) needs no rest that long. */
const END_MAX_REST_MS = 1_000;
/** Dead-lettered only after minutes of failing (a database down that long). */
const MAX_DELIVER = 120;
const GAP_LOCK_KEY = 'transcript:live-gaps';

/** A final that overtook its session's start on the stream (a second replica took the start). */
class NotStarted extends RetryLater {}

/**
 * Consumes the LIVE stream, the one stored hop between the pipeline and the store: a session
 * start creates the transcript, a final is stored at its place (final_index) the moment it
 * arrives and handed to the viewers' sockets, an end closes the session (or is kept until its
 * missing finals are in or closed as lost). No message waits by being refused: redeliveries
 * happen only when handling failed. Messages of one session are handled in the order they
 * came, one after another, on this replica (a start before its finals).
 *
 * live-fanout reads the same stream beside this consumer and delivers the finals that carry
 * their place before they are stored. What only this service knows goes on `fanout.<tid>`
 * (core NATS, to the gateways with a viewer of the session) after the commit: a final stored
 * without its place, lost markers and session ends. They are not stored: a viewer that missed
 * one asks for the lines after the last it holds; a crash between commit and delivery
 * redelivers the message, which finds the line stored ('duplicate') and hands it on again.
 */
export async function startLiveConsumer(opts: {
  bus: Bus;
  outbox: EventOutbox;
  store: LiveStore;
  logger: Logger;
}): Promise<Consumer> {
  const { bus, store, logger } = opts;
  const publisher = livePublisher(bus, opts.outbox, logger);

  async function onStart(payload: unknown): Promise<void> {
    assertValid(LiveSessionStartSchema, payload, 'live session start');
    if (!(await store.start(payload))) {
      logger.error(
        { transcriptId: payload.transcript_id },
        'live session start names a transcript of another owner; ignored',
      );
    }
  }

  async function onFinal(payload: unknown): Promise<void> {
    assertValid(LiveUtteranceSchema, payload, 'live final utterance');
    const result = await store.append(payload);
    if (result.kind === 'not-started')
      throw new NotStarted(`session ${payload.transcript_id} has not started yet`);
    if (result.kind === 'stored') liveLinesStored.inc();
    // live-fanout delivered a final stored at its own place before it was stored; the rest
    // (no place, or placed after the others since its place was taken) are delivered here.
    if (!fannedOutFromLive(payload) || result.line.seq !== payload.final_index)
      publisher.line(result.session, result.line);
    // The last missing final of a session whose end came first: the end is due now.
    if (LiveStore.endDue(result.session)) {
      const end = await store.end(result.session.pendingEnd!);
      if (end.kind === 'ended') publisher.closed(end.session);
    }
  }

  const endSlot = pacedSlots(END_SLOTS, END_REST, { maxRestMs: END_MAX_REST_MS });

  async function onEnd(payload: unknown, ctx: DurableContext): Promise<void> {
    assertValid(LiveSessionEndSchema, payload, 'live session end');
    const result = await endSlot(
      () => store.end(payload),
      () => ctx.working(),
    );
    if (result.kind === 'not-started')
      throw new NotStarted(`session ${payload.transcript_id} has not started yet`);
    if (result.kind === 'waiting') {
      logger.info(
        { transcriptId: payload.transcript_id, stored: result.stored, expected: result.expected },
        'live session end kept until its missing finals are stored or closed as lost',
      );
      return;
    }
    // Ended here, or before (a redelivery): the viewers are told again; the events are in the outbox.
    publisher.closed(result.session);
  }

  // Messages of one session, one after another in the order they came (this replica).
  const inOrder = keyedSequence();

  // One durable for start, final and end, since their order per session matters: hence not
  // the kit's one-event `consume`, and each handler above validates its own payload.
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
    async (payload, ctx: DurableContext) => {
      const live = parseLiveSubject(ctx.subject);
      const on = live && { start: onStart, final: onFinal, end: onEnd, interim: null }[live.kind];
      if (!live || !on) {
        logger.warn({ subject: ctx.subject }, 'unknown live message; ignored');
        return;
      }
      await inOrder(live.transcriptId, () => on(payload, ctx));
    },
  );
}

/**
 * What a stored line or a closed session sends to the viewers' sockets, after the commit
 * (a close's usage record and summary request went into the outbox with it).
 */
function livePublisher(bus: Bus, outbox: EventOutbox, logger: Logger) {
  const deliver = (d: FanoutDelivery): void => {
    // Not stored, not awaited by the store: a viewer that misses it catches up by seq.
    bus.publish(liveSubject.fanout(d.transcript_id), d).catch((err: unknown) => {
      logger.warn({ err, transcriptId: d.transcript_id }, 'live delivery not sent; viewers catch up by seq');
    });
  };
  return {
    line(session: LiveSessionRow, line: LiveLine): void {
      deliver(finalDelivery(session.transcriptId, session.startedAt, line));
    },
    closed(session: LiveSessionRow): void {
      outbox.wake();
      if (session.lineCount < session.finalCount) {
        logger.warn(
          { transcriptId: session.transcriptId, stored: session.lineCount, last: session.finalCount },
          'live session closed without every final the pipeline published',
        );
      }
      deliver(
        sessionEndDelivery({
          transcript_id: session.transcriptId,
          name: session.name,
          ended_at: session.endedAt ?? new Date().toISOString(),
          last_seq: session.finalCount,
          ...(session.error ? { error: session.error } : {}),
        }),
      );
    },
  };
}

/**
 * Closes the gaps that stayed open LIVE_GAP_SECONDS: lost markers handed to the viewers, and a
 * kept end carried out (usage, summary). One replica at a time sweeps (a lock held until the
 * next sweep is due); every few seconds, so a gap costs the viewer about LIVE_GAP_SECONDS.
 */
export function startGapSweep(opts: {
  bus: Bus;
  outbox: EventOutbox;
  store: LiveStore;
  coord: Coordination;
  logger: Logger;
  config: Static<typeof LiveGapConfigSchema>;
}): { stop(): void; sweep(): Promise<number> } {
  const gapSeconds = opts.config.LIVE_GAP_SECONDS;
  const everyMs = Math.max(100, Math.min(5_000, Math.floor((gapSeconds * 1000) / 4)));
  const log = opts.logger.child({ component: 'live-gaps' });
  const publisher = livePublisher(opts.bus, opts.outbox, log);

  async function sweep(): Promise<number> {
    const closed = await opts.store.closeGaps(gapSeconds);
    for (const c of closed) {
      log.warn(
        { transcriptId: c.session.transcriptId, lost: c.markers.map((m) => m.seq), ended: c.end !== null },
        'live session gap closed as lost',
      );
      for (const m of c.markers) publisher.line(c.session, m);
      if (c.end?.kind === 'ended') publisher.closed(c.end.session);
    }
    return closed.length;
  }

  const timer = lockedSweep({
    coord: opts.coord,
    lockKey: GAP_LOCK_KEY,
    everyMs,
    sweep,
    log,
    failed: 'live gap sweep failed',
  });
  return { stop: timer.stop, sweep };
}
