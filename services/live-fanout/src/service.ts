import {
  FANOUT_ALL,
  FanoutDeliverySchema,
  fannedOutFromLive,
  finalDelivery,
  interimDelivery,
  LIVE_INTERIM_ALL,
  lineOfDelivery,
  LIVE_STREAM,
  LiveSessionStartSchema,
  LiveSocketEvents,
  liveStream,
  liveSubject,
  LiveUtteranceSchema,
  liveWindowRpc,
  parseLiveSubject,
  type FanoutDelivery,
  type LiveTranscriptionEvent,
  type LiveUtterance,
} from '@chronicler/contracts';
import { assertValid, defineService, keyedSequence, listen, packageVersion, serve } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import { LiveWindows } from './windows.ts';

const fanoutEvent = { subject: FANOUT_ALL, payload: FanoutDeliverySchema };
const interimEvent = { subject: LIVE_INTERIM_ALL, payload: LiveUtteranceSchema };
/** Where a session's start is kept for a replica that did not see the start message (ms). */
const START_TTL_MS = 24 * 60 * 60 * 1000;
const startKey = (transcriptId: string) => `live-fanout:start:${transcriptId}`;
/**
 * LIVE messages handled at once across sessions; each session's go one after another in the
 * order of the stream (a start before its finals). A message held its slot for a pull and a
 * confirmed ack, two round trips to NATS, even the ends this service skips. One at a time in
 * all bounded the whole stream's rate on a busy machine; 16 made the lines of the sessions
 * still going reach their viewers up to 500 ms late behind 200 ends published within the same
 * second (`pnpm bench live`), pulled a few at a time as slots freed. As many slots as a burst
 * of ends takes them in one or two pulls (a slot costs nothing while no message holds it), and
 * the acks are not confirmed (see the consumer below).
 */
const CONCURRENCY = 256;

/**
 * live-fanout: reads LIVE with its own durable, beside the transcript service's, and hands each
 * final with its place (final_index) to the gateways that hold a viewer of its session
 * (`fanout.<tid>`: a gateway subscribes while it has one), without waiting for PostgreSQL.
 * Interims come the same way from the pipeline's core subject. Every replica keeps every
 * active session's recent window (from the deliveries themselves, its own and the transcript
 * service's), which a joining viewer gets beyond the stored lines (svc.live-fanout.window).
 */
export default defineService({
  name: 'live-fanout',
  version: packageVersion(import.meta.url),
  config: Type.Object({
    /** Recent lines kept per active session for joining viewers. */
    LIVE_WINDOW_LINES: Type.Integer({ default: 500, minimum: 1, maximum: 100_000 }),
    /** Sessions whose window is kept at once (the least recently active goes first). */
    LIVE_WINDOW_SESSIONS: Type.Integer({ default: 5_000, minimum: 1, maximum: 1_000_000 }),
    /** A session's window is dropped after this long without a line (minutes). */
    LIVE_WINDOW_IDLE_MINUTES: Type.Number({ default: 30, minimum: 0.1 }),
  }),
  async start(ctx) {
    const { bus, logger, coord, config } = ctx;
    const windows = new LiveWindows({
      linesPerSession: config.LIVE_WINDOW_LINES,
      sessions: config.LIVE_WINDOW_SESSIONS,
      idleMs: config.LIVE_WINDOW_IDLE_MINUTES * 60_000,
    });
    const deliver = (d: FanoutDelivery): void => {
      bus.publish(liveSubject.fanout(d.transcript_id), d).catch((err: unknown) => {
        logger.warn(
          { err, transcriptId: d.transcript_id },
          'live delivery not sent; viewers catch up by seq',
        );
      });
    };

    /** The session's start: this replica's window, else the shared cache (another replica saw it). */
    async function startOf(u: LiveUtterance): Promise<string | null> {
      if (u.session_start_time) return u.session_start_time;
      const known = windows.startOf(u.transcript_id);
      if (known) return known;
      const cached = await coord.cache.get<string>(startKey(u.transcript_id)).catch((err: unknown) => {
        logger.warn({ err }, 'live session start not readable from the cache');
        return undefined;
      });
      if (typeof cached !== 'string') return null;
      windows.started(u.transcript_id, cached);
      return cached;
    }

    // Messages of one session, one after another in the order they came (this replica).
    const inOrder = keyedSequence();

    await bus.ensureStream(liveStream);
    const consumer = await bus.consume(
      {
        stream: LIVE_STREAM,
        durable: 'live-fanout',
        concurrency: CONCURRENCY,
        // A delivery done twice reaches the viewers twice, who keep one line per seq: no
        // confirmed ack (a round trip holding the slot) for each message, ends included.
        confirmAck: false,
        maxDeliver: 5,
        backoffMs: 200,
        // A killed replica's deliveries come again this soon; viewers drop repeats by seq.
        ackWaitMs: 5_000,
      },
      async (payload, meta) => {
        const live = parseLiveSubject(meta.subject);
        if (live) await inOrder(live.transcriptId, () => handle(live, payload));
      },
    );
    async function handle(
      live: NonNullable<ReturnType<typeof parseLiveSubject>>,
      payload: unknown,
    ): Promise<void> {
      if (live.kind === 'start') {
        assertValid(LiveSessionStartSchema, payload, 'live session start');
        windows.started(live.transcriptId, payload.started_at);
        await coord.cache
          .set(startKey(live.transcriptId), payload.started_at, START_TTL_MS)
          .catch((err: unknown) => {
            logger.warn({ err, transcriptId: live.transcriptId }, 'live session start not cached');
          });
      } else if (live.kind === 'final') {
        assertValid(LiveUtteranceSchema, payload, 'live final utterance');
        if (!fannedOutFromLive(payload)) return;
        const startedAt = await startOf(payload);
        if (startedAt === null) {
          // Neither this replica nor the cache knows when it started: the stored line reaches
          // viewers by their catch-up (a join, a gap asked for) instead.
          logger.warn(
            { transcriptId: payload.transcript_id },
            'live final of an unknown session not delivered',
          );
          return;
        }
        const start = payload.start_seconds;
        deliver(
          finalDelivery(payload.transcript_id, startedAt, {
            seq: payload.final_index!,
            utterance_id: payload.utterance_id,
            text: payload.text.trim(),
            speaker_tag: payload.speaker_tag,
            ...(payload.speaker_info ? { speaker_info: payload.speaker_info } : {}),
            start_seconds: start,
            end_seconds: Math.max(start, payload.end_seconds),
            timestamp: new Date(Date.parse(startedAt) + start * 1000).toISOString(),
          }),
        );
      }
      // An end is the transcript service's to announce, once every final is stored.
    }

    // Interims are a preview, worth nothing late: fire-and-forget, one replica each.
    const interims = listen(
      bus,
      interimEvent,
      (u) => {
        const start = u.session_start_time ?? windows.startOf(u.transcript_id);
        deliver(interimDelivery(start ? { ...u, session_start_time: start } : u));
      },
      { queue: 'live-fanout' },
    );
    // Every replica's window hears every delivery, from any replica and the transcript service.
    const heard = listen(bus, fanoutEvent, (d) => {
      const line = lineOfDelivery(d);
      if (line)
        windows.add(
          d.transcript_id,
          line,
          (d.payload as LiveTranscriptionEvent).session_start_time || undefined,
        );
      else if (d.event === LiveSocketEvents.sessionEnd) windows.ended(d.transcript_id);
    });
    const window = serve(bus, liveWindowRpc, (req) => windows.after(req.id, req.after_seq));
    logger.info('live fan-out reading LIVE beside the transcript service');
    return {
      async stop() {
        await window.unsubscribe();
        await interims.unsubscribe();
        await heard.unsubscribe();
        await consumer.stop();
      },
    };
  },
});
