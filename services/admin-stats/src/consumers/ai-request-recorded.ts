import type { AiRequestRecorded } from '@chronicler/contracts';
import type { DurableContext, Logger } from '@chronicler/kit';
import type { UsageStore } from '../db/store.ts';

/**
 * evt.usage.ai-request-recorded (durable): one ai_requests row per record id, so a redelivery
 * or a producer's retry counts once. An invalid record throws and ends in the dead-letter
 * subject after the consumer's deliveries, where it can be inspected.
 */
export const onAiRequestRecorded =
  (store: UsageStore, logger: Logger) =>
  async (record: AiRequestRecorded, ctx: DurableContext): Promise<void> => {
    const createdAt = new Date(record.created_at);
    if (Number.isNaN(createdAt.getTime())) {
      throw new Error(`created_at is not a time: ${JSON.stringify(record.created_at)}`);
    }
    const inserted = await store.recordAiRequest(record, createdAt);
    logger.debug({ record_id: record.record_id, seq: ctx.seq, duplicate: !inserted }, 'AI request recorded');
  };
