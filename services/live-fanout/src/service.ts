import {
  FANOUT_ALL,
  LIVE_INTERIM_ALL,
  LIVE_OUT_STREAM,
  LiveLineStoredSchema,
  LiveSessionClosedSchema,
  LiveUtteranceSchema,
  liveOutStream,
  liveSubject,
  type FanoutDelivery,
} from '@chronicler/contracts';
import { assertValid, defineService, packageVersion } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import { finalEvent, interimEvent, sessionEndEvent } from './events.ts';
import { StartTimes } from './start-times.ts';

/**
 * live-fanout: turns what the live pipeline and the transcript service publish into the
 * socket events of 02 §7 and hands each to the gateways' socket edge (`fanout.<tid>`, one
 * gateway of the queue group takes it; the socket.io Redis adapter brings it to the sockets
 * on every gateway). Stored lines and session ends come from a durable consumer, so a
 * fan-out that was down delivers what it missed when it is back; viewers drop what they
 * already hold by its seq. Interims are fire-and-forget, as they are worth nothing late.
 */
export default defineService({
  name: 'live-fanout',
  version: packageVersion(import.meta.url),
  config: Type.Object({
    /** Stored lines handed on at once by one replica. */
    LIVE_FANOUT_CONCURRENCY: Type.Integer({ default: 32, minimum: 1, maximum: 1000 }),
  }),
  async start(ctx) {
    const { bus, logger } = ctx;
    const starts = new StartTimes(10_000);
    const deliver = (transcriptId: string, d: { event: string; payload: unknown }) =>
      bus.publish(liveSubject.fanout(transcriptId), {
        transcript_id: transcriptId,
        event: d.event,
        payload: d.payload,
      } satisfies FanoutDelivery);

    await bus.ensureStream(liveOutStream);
    const consumer = await bus.consume(
      {
        stream: LIVE_OUT_STREAM,
        durable: 'live-fanout',
        concurrency: ctx.config.LIVE_FANOUT_CONCURRENCY,
        // A late line is still worth delivering; nothing here fails for good but a bad message.
        maxDeliver: 5,
        backoffMs: 200,
        // A killed replica's deliveries come again this soon; viewers drop repeats by seq.
        ackWaitMs: 5_000,
      },
      async (payload, meta) => {
        if (meta.subject.endsWith('.line')) {
          assertValid(LiveLineStoredSchema, payload, 'stored live line');
          starts.set(payload.transcript_id, payload.session_start_time);
          await deliver(payload.transcript_id, finalEvent(payload));
        } else if (meta.subject.endsWith('.closed')) {
          assertValid(LiveSessionClosedSchema, payload, 'live session close');
          starts.delete(payload.transcript_id);
          await deliver(payload.transcript_id, sessionEndEvent(payload));
        }
      },
    );
    const interims = bus.subscribe(
      LIVE_INTERIM_ALL,
      async (payload) => {
        try {
          assertValid(LiveUtteranceSchema, payload, 'live interim');
        } catch (err) {
          logger.warn({ err }, 'invalid live interim dropped');
          return;
        }
        if (payload.session_start_time) starts.set(payload.transcript_id, payload.session_start_time);
        await deliver(payload.transcript_id, interimEvent(payload, starts.get(payload.transcript_id)));
      },
      { queue: 'live-fanout' },
    );
    logger.info({ fanout: FANOUT_ALL }, 'live fan-out consuming stored lines and interims');
    return {
      async stop() {
        await interims.unsubscribe();
        await consumer.stop();
      },
    };
  },
});
