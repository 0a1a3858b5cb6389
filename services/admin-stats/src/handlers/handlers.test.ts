import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  aiRequestRecordedEvent,
  transcriptionRecordedEvent,
  type AiRequestRecorded,
  type TranscriptionRecorded,
} from '@chronicler/contracts';
import { createLogger, ServiceError, type DurableContext } from '@chronicler/kit';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onAiRequestRecorded } from '../consumers/ai-request-recorded.ts';
import { onTranscriptionRecorded } from '../consumers/transcription-recorded.ts';
import { UsageStore } from '../db/store.ts';
import { userStats } from './user-stats.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
const logger = createLogger('admin-stats-test', { level: 'silent' });

let bed: ServiceTestbed;
let store: UsageStore;

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'admin_stats', migrationsDir });
  store = new UsageStore(bed.db, bed.schema);
});
afterAll(async () => {
  await bed?.close();
});

/** The delivery as the durable consumer hands it over; `deliveryCount` 2 is a redelivery. */
function delivery(subject: string, deliveryCount = 1): DurableContext {
  return { subject, headers: {}, stream: 'USAGE_EVENTS', seq: 1, deliveryCount, working: () => undefined };
}

function transcription(owner: string, seconds: number, recordedAt: string): TranscriptionRecorded {
  return {
    record_id: `audio:${randomUUID()}`,
    owner_id: owner,
    transcript_id: randomUUID(),
    source: 'audio',
    provider: 'deepgram',
    seconds,
    recorded_at: recordedAt,
  };
}

function aiRequest(user: string, createdAt: string, success = true): AiRequestRecorded {
  return {
    record_id: randomUUID(),
    user_id: user,
    request_type: 'chat',
    model: 'offline',
    input_tokens: 120,
    output_tokens: 40,
    estimated_cost_usd: 0.0001,
    success,
    processing_time_ms: 15,
    created_at: createdAt,
  };
}

async function rows(table: string, column: string, value: string): Promise<Record<string, unknown>[]> {
  return bed.db.query(`select * from "${bed.schema}".${table} where ${column} = $1`, [value]);
}

async function recordTranscription(r: TranscriptionRecorded, deliveryCount = 1): Promise<void> {
  await onTranscriptionRecorded(store, logger)(
    r,
    delivery(transcriptionRecordedEvent.subject, deliveryCount),
  );
}

async function recordAi(r: AiRequestRecorded, deliveryCount = 1): Promise<void> {
  await onAiRequestRecorded(store, logger)(r, delivery(aiRequestRecordedEvent.subject, deliveryCount));
}

describe('evt.usage.transcription-recorded', () => {
  it('keeps one ledger row per record id, so a redelivery counts once', async () => {
    const owner = randomUUID();
    const record = transcription(owner, 90, '2024-03-10T12:00:00.000Z');
    await recordTranscription(record);
    await recordTranscription(record, 2);
    const kept = await rows('transcription_usage', 'owner_id', owner);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ record_id: record.record_id, source: 'audio', seconds: 90 });
    const stats = await userStats(store)({ owner_id: owner, start: '2024-03-10', end: '2024-03-10' });
    expect(stats.transcription_hours).toBeCloseTo(90 / 3600);
  });

  it('refuses a record whose time is not a time, and keeps nothing', async () => {
    const owner = randomUUID();
    await expect(recordTranscription(transcription(owner, 60, 'yesterday'))).rejects.toThrow(
      /recorded_at is not a time/,
    );
    expect(await rows('transcription_usage', 'owner_id', owner)).toEqual([]);
  });
});

describe('evt.usage.ai-request-recorded', () => {
  it('keeps one row per record id, failed requests included, so a redelivery counts once', async () => {
    const user = randomUUID();
    const ok = aiRequest(user, '2024-03-10T08:00:00.000Z');
    const failed = aiRequest(user, '2024-03-10T09:00:00.000Z', false);
    await recordAi(ok);
    await recordAi(ok, 2);
    await recordAi(failed);
    const kept = await rows('ai_requests', 'user_id', user);
    expect(kept.map((r) => [r.record_id, r.success]).sort()).toEqual(
      [
        [ok.record_id, true],
        [failed.record_id, false],
      ].sort(),
    );
    const stats = await userStats(store)({ owner_id: user, start: '2024-03-10', end: '2024-03-10' });
    expect(stats.ai_requests_total).toBe(2);
  });

  it('refuses a record whose time is not a time, and keeps nothing', async () => {
    const user = randomUUID();
    await expect(recordAi(aiRequest(user, 'not a date'))).rejects.toThrow(/created_at is not a time/);
    expect(await rows('ai_requests', 'user_id', user)).toEqual([]);
  });
});

describe('svc.admin-stats.user-stats', () => {
  it("sums the owner's usage inside the window only, both dates inclusive, and not another user's", async () => {
    const owner = randomUUID();
    const stranger = randomUUID();
    // Inside [2024-03-01 00:00, 2024-03-03 00:00) UTC.
    await recordTranscription(transcription(owner, 1800, '2024-03-01T00:00:00.000Z'));
    await recordTranscription(transcription(owner, 3600, '2024-03-02T23:59:59.000Z'));
    await recordAi(aiRequest(owner, '2024-03-01T10:00:00.000Z'));
    await recordAi(aiRequest(owner, '2024-03-02T10:00:00.000Z', false));
    // Just outside the window.
    await recordTranscription(transcription(owner, 7200, '2024-02-29T23:59:59.000Z'));
    await recordTranscription(transcription(owner, 7200, '2024-03-03T00:00:00.000Z'));
    await recordAi(aiRequest(owner, '2024-03-03T00:00:00.000Z'));
    // Another user's, inside the window.
    await recordTranscription(transcription(stranger, 7200, '2024-03-01T12:00:00.000Z'));
    await recordAi(aiRequest(stranger, '2024-03-01T12:00:00.000Z'));

    expect(await userStats(store)({ owner_id: owner, start: '2024-03-01', end: '2024-03-02' })).toEqual({
      transcription_hours: 1.5,
      ai_requests_total: 2,
    });
    expect(
      await userStats(store)({ owner_id: randomUUID(), start: '2024-03-01', end: '2024-03-02' }),
    ).toEqual({
      transcription_hours: 0,
      ai_requests_total: 0,
    });
  });

  it('refuses a malformed date, a reversed range and a range over a year', async () => {
    const stats = userStats(store);
    const refused = async (start: string, end: string) => {
      const err = await stats({ owner_id: randomUUID(), start, end }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServiceError);
      return { code: (err as ServiceError).code, message: (err as ServiceError).message };
    };
    expect(await refused('2024-02-30', '2024-03-01')).toEqual({
      code: 'bad_request',
      message: 'Invalid start date. Use YYYY-MM-DD.',
    });
    expect(await refused('2024-03-02', '2024-03-01')).toEqual({
      code: 'bad_request',
      message: 'Start date must be on or before end date.',
    });
    expect(await refused('2023-01-01', '2024-12-31')).toEqual({
      code: 'bad_request',
      message: 'Date range cannot exceed 366 days.',
    });
  });
});
