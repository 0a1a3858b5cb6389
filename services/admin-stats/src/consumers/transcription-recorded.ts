import type { TranscriptionRecorded } from '@chronicler/contracts';
import type { DurableContext, Logger } from '@chronicler/kit';
import type { UsageStore } from '../db/store.ts';

/**
 * evt.usage.transcription-recorded (durable): one ledger row per record id, so a redelivery
 * or a producer's retry counts once. A record that cannot be valid throws and ends in the
 * dead-letter subject after the consumer's deliveries, where it can be inspected.
 */
export const onTranscriptionRecorded =
  (store: UsageStore, logger: Logger) =>
  async (record: TranscriptionRecorded, ctx: DurableContext): Promise<void> => {
    const recordedAt = new Date(record.recorded_at);
    if (Number.isNaN(recordedAt.getTime())) {
      throw new Error(`recorded_at is not a time: ${JSON.stringify(record.recorded_at)}`);
    }
    const inserted = await store.recordTranscription(record, recordedAt);
    logger.debug(
      { record_id: record.record_id, seq: ctx.seq, duplicate: !inserted },
      'transcription usage recorded',
    );
  };
