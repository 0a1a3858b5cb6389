import type { SpeechStreamRecorded } from '@chronicler/contracts';
import type { DurableContext, Logger } from '@chronicler/kit';
import type { UsageStore } from '../db/store.ts';

/**
 * evt.usage.speech-stream-recorded (durable): one row per provider stream of one speaker,
 * keyed by record id so a redelivery counts once; a record that cannot be valid throws and
 * ends in the dead-letter subject after the consumer's deliveries.
 */
export const onSpeechStreamRecorded =
  (store: UsageStore, logger: Logger) =>
  async (record: SpeechStreamRecorded, ctx: DurableContext): Promise<void> => {
    const recordedAt = new Date(record.recorded_at);
    if (Number.isNaN(recordedAt.getTime())) {
      throw new Error(`recorded_at is not a time: ${JSON.stringify(record.recorded_at)}`);
    }
    const inserted = await store.recordSpeechStream(record, recordedAt);
    logger.debug(
      { record_id: record.record_id, seq: ctx.seq, duplicate: !inserted },
      'speech stream usage recorded',
    );
  };
