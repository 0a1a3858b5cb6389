import {
  claimSummaryRpc,
  setSummaryStatusRpc,
  type BusEventPayload,
  type transcriptReadyForSummaryEvent,
} from '@chronicler/contracts';
import { call, ServiceError, type DurableContext, type Logger } from '@chronicler/kit';
import { summarizeAndStore, type SessionSummaryDeps } from '../handlers/generate-session.ts';
import { readTranscript } from '../sources.ts';

export const READY_MAX_DELIVER = 4;

/**
 * The automatic summary of an ended session without one. The claim (none -> generating, in
 * the transcript service's row) makes it once per session whichever replica gets the event;
 * a failure is retried by redelivery and marked 'failed' on the last attempt.
 */
export const onReadyForSummary =
  (deps: SessionSummaryDeps, logger: Logger) =>
  async (
    { owner_id, transcript_id }: BusEventPayload<typeof transcriptReadyForSummaryEvent>,
    ctx: DurableContext,
  ): Promise<void> => {
    const log = logger.child({ transcript_id, msgId: ctx.msgId, delivery: ctx.deliveryCount });
    const { bus } = deps;
    const { claimed } = await call(bus, claimSummaryRpc, { owner_id, id: transcript_id });
    if (!claimed) return;
    const heartbeat = setInterval(() => ctx.working(), 10_000);
    try {
      const t = await readTranscript(bus, owner_id, transcript_id);
      if (!t.content.trim()) {
        await call(bus, setSummaryStatusRpc, { owner_id, id: transcript_id, status: 'none' });
        return;
      }
      // Automatic: the offline engine does not count it against the user's limit; a model
      // engine that meets the limit waits and tries again (heartbeating) instead of failing.
      await summarizeAndStore(deps, owner_id, t, {
        automatic: true,
        retry: {
          onWait: (ms) => {
            ctx.working();
            log.info({ waitMs: ms }, 'automatic summary waits for the AI rate limit');
          },
        },
      });
      log.info('automatic summary generated');
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'not_found') return;
      if (ctx.deliveryCount < READY_MAX_DELIVER) {
        // Left 'generating' so the redelivery claims it again.
        await call(bus, setSummaryStatusRpc, { owner_id, id: transcript_id, status: 'generating' }).catch(
          () => undefined,
        );
        log.warn({ err }, 'automatic summary failed; it will be tried again');
        throw err;
      }
      await call(bus, setSummaryStatusRpc, { owner_id, id: transcript_id, status: 'failed' }).catch(
        () => undefined,
      );
      log.warn({ err }, 'automatic summary failed for good');
    } finally {
      clearInterval(heartbeat);
    }
  };
