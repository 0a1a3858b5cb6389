import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServiceError, type DurableContext } from '@chronicler/kit';
import { createLogger } from '@chronicler/kit';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onLiveSessionEnded, onLiveSessionStarted } from '../consumers/live-sessions.ts';
import { onSpeechStreamRecorded } from '../consumers/speech-stream-recorded.ts';
import { UsageStore } from '../db/store.ts';
import { adminStats } from './admin-stats.ts';
import { aiCostsWeekly } from './ai-costs-weekly.ts';
import { chartDays, round4 } from './days.ts';
import { transcriptionHoursPerDay } from './transcription-hours.ts';
import { userMetrics } from './user-metrics.ts';

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

const ctx = (subject: string): DurableContext => ({
  subject,
  headers: {},
  stream: 'LIVE',
  seq: 1,
  deliveryCount: 1,
  working: () => undefined,
});

/** One AI request as an engine records it: the offline fallback's at $0, a model's at its cost. */
async function ai(createdAt: string, input: number, output: number, costUsd = 0): Promise<void> {
  await store.recordAiRequest(
    {
      record_id: randomUUID(),
      user_id: randomUUID(),
      request_type: 'chat',
      model: costUsd ? 'gpt-4o-mini' : 'offline',
      input_tokens: input,
      output_tokens: output,
      estimated_cost_usd: costUsd,
      success: true,
      processing_time_ms: 1,
      created_at: createdAt,
    },
    new Date(createdAt),
  );
}

describe('chart days', () => {
  it('are today (UTC) and the six days before, oldest first, across a month end', () => {
    const { dates, window } = chartDays(new Date('2031-03-02T23:30:00-05:00'));
    expect(dates).toEqual([
      '2031-02-25',
      '2031-02-26',
      '2031-02-27',
      '2031-02-28',
      '2031-03-01',
      '2031-03-02',
      '2031-03-03',
    ]);
    expect(window.from.toISOString()).toBe('2031-02-25T00:00:00.000Z');
    expect(window.to.toISOString()).toBe('2031-03-04T00:00:00.000Z');
  });

  it('round costs to 4 decimals, half up', () => {
    expect(round4(0.00005)).toBe(0.0001);
    expect(round4(1.00005)).toBe(1.0001);
  });
});

describe('svc.admin-stats.ai-costs-weekly', () => {
  it("answers a row for each of the 7 days, zeros included, with the day's tokens and the cost its requests recorded", async () => {
    // A week of its own, far from other tests' rows.
    await ai('2031-05-10T00:00:00.000Z', 1_000_000, 0, 0.1);
    await ai('2031-05-10T23:59:59.000Z', 0, 250_000, 0.1);
    // A day of the offline fallback only: tokens counted, nothing paid.
    await ai('2031-05-12T09:00:00.000Z', 300_000, 20_000);
    await ai('2031-05-13T12:00:00.000Z', 3000, 1000, 0.0007);
    await ai('2031-05-13T13:00:00.000Z', 90_000, 4000);
    await ai('2031-05-09T23:59:59.000Z', 7_000_000, 7_000_000, 3.5); // the day before the window
    await ai('2031-05-17T00:00:00.000Z', 7_000_000, 7_000_000, 3.5); // the day after
    const week = await aiCostsWeekly(store, () => new Date('2031-05-16T08:00:00Z'))();
    expect(week).toEqual({
      status: 'success',
      days: [
        {
          date: '2031-05-10',
          total_input_tokens: 1_000_000,
          total_output_tokens: 250_000,
          total_cost_usd: 0.2,
        },
        { date: '2031-05-11', total_input_tokens: 0, total_output_tokens: 0, total_cost_usd: 0 },
        { date: '2031-05-12', total_input_tokens: 300_000, total_output_tokens: 20_000, total_cost_usd: 0 },
        { date: '2031-05-13', total_input_tokens: 93_000, total_output_tokens: 5000, total_cost_usd: 0.0007 },
        { date: '2031-05-14', total_input_tokens: 0, total_output_tokens: 0, total_cost_usd: 0 },
        { date: '2031-05-15', total_input_tokens: 0, total_output_tokens: 0, total_cost_usd: 0 },
        { date: '2031-05-16', total_input_tokens: 0, total_output_tokens: 0, total_cost_usd: 0 },
      ],
    });
    // The chart's week and the request rows of that week sum to the same dollars.
    const rows = (await store.recentAiRequests(1000)).filter(
      (r) => r.created_at >= '2031-05-10' && r.created_at < '2031-05-17',
    );
    const rowsTotal = round4(rows.reduce((sum, r) => sum + r.estimated_cost_usd, 0));
    expect(round4(week.days.reduce((sum, d) => sum + d.total_cost_usd, 0))).toBe(rowsTotal);
    expect(rowsTotal).toBe(0.2007);
  });
});

describe('svc.admin-stats.transcription-hours-per-day', () => {
  it('sums every user per UTC day into hours, 7 rows with zeros', async () => {
    const usage = (seconds: number, at: string) =>
      store.recordTranscription(
        {
          record_id: randomUUID(),
          owner_id: randomUUID(),
          transcript_id: '',
          source: 'audio',
          provider: 'deepgram',
          seconds,
          recorded_at: at,
        },
        new Date(at),
      );
    await usage(1800, '2032-01-01T00:00:00Z');
    await usage(90, '2032-01-01T10:00:00Z');
    await usage(7200, '2032-01-07T23:59:59Z');
    await usage(3600, '2031-12-31T23:59:59Z');
    const hours = await transcriptionHoursPerDay(store, () => new Date('2032-01-07T12:00:00Z'))();
    const none = { stream_hours: 0, stream_speakers: 0 };
    expect(hours.transcription_hours_per_day).toEqual([
      { date: '2032-01-01', transcription_hours: 0.525, ...none },
      { date: '2032-01-02', transcription_hours: 0, ...none },
      { date: '2032-01-03', transcription_hours: 0, ...none },
      { date: '2032-01-04', transcription_hours: 0, ...none },
      { date: '2032-01-05', transcription_hours: 0, ...none },
      { date: '2032-01-06', transcription_hours: 0, ...none },
      { date: '2032-01-07', transcription_hours: 2, ...none },
    ]);
  });

  it('adds the speech stream hours of every speaker (what providers bill), each record once', async () => {
    const tid = randomUUID();
    const stream = (speaker: string, index: number, seconds: number, at: string) =>
      onSpeechStreamRecorded(store, logger)(
        {
          record_id: `stream:${tid}:${speaker}:${index}`,
          owner_id: 'owner-1',
          transcript_id: tid,
          speaker_key: speaker,
          provider: 'deepgram',
          seconds,
          recorded_at: at,
        },
        ctx('evt.usage.speech-stream-recorded'),
      );
    // Three speakers of one two-hour session, one of them on two streams (released in silence).
    await stream('1001', 0, 3600, '2033-02-03T20:00:00Z');
    await stream('1001', 1, 3600, '2033-02-03T21:00:00Z');
    await stream('1002', 0, 7200, '2033-02-03T21:00:00Z');
    await stream('1003', 0, 5400, '2033-02-03T21:00:00Z');
    await stream('1003', 0, 5400, '2033-02-03T21:00:00Z'); // redelivered: counted once
    await expect(stream('1004', 0, 10, 'yesterday-ish')).rejects.toThrow(/recorded_at is not a time/);
    const hours = await transcriptionHoursPerDay(store, () => new Date('2033-02-04T12:00:00Z'))();
    expect(hours.transcription_hours_per_day.slice(-2)).toEqual([
      { date: '2033-02-03', transcription_hours: 0, stream_hours: 5.5, stream_speakers: 3 },
      { date: '2033-02-04', transcription_hours: 0, stream_hours: 0, stream_speakers: 0 },
    ]);
  });
});

describe('svc.admin-stats.user-metrics', () => {
  it('refuses bad and unbounded ranges with the message the user sees', async () => {
    const refused = async (start: string, end: string) => {
      const err = await userMetrics(store)({ start, end }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServiceError);
      return (err as ServiceError).message;
    };
    expect(await refused('2031-13-01', '2031-12-31')).toBe('Invalid start date. Use YYYY-MM-DD.');
    expect(await refused('2031-01-01', 'tomorrow')).toBe('Invalid end date. Use YYYY-MM-DD.');
    expect(await refused('2030-01-01', '2031-12-31')).toBe('Date range cannot exceed 366 days.');
  });

  it('totals every user in the range and lists the busiest first', async () => {
    const metrics = await userMetrics(store)({ start: '2031-05-10', end: '2031-05-13' });
    // The cost chart's rows (each request by its own user): two of them the offline fallback's.
    expect(metrics).toMatchObject({ active_users: 5, ai_requests: 5, transcription_hours: 0 });
    expect(metrics.users.map((u) => u.input_tokens).sort((a, b) => a - b)).toEqual([
      0, 3000, 90_000, 300_000, 1_000_000,
    ]);
    expect(metrics.estimated_cost_usd).toBe(0.2007);
  });
});

describe('live sessions and svc.admin-stats.stats', () => {
  const sources = {
    transcripts: async (since: string) => ({
      total: 42,
      created_per_day: [
        { date: since, count: 2 },
        { date: '2033-02-07', count: 5 },
        { date: '2033-01-01', count: 9 }, // outside the window: dropped
      ],
    }),
    users: async () => 7,
    streams: async () => ({ deepgram: 3, assemblyai: 1 }),
  };

  it('lists a started session as active with its duration, until its first end; an end before its start counts', async () => {
    const a = randomUUID();
    const b = randomUUID();
    const owner = randomUUID();
    const start = (tid: string, at: string) =>
      onLiveSessionStarted(store, logger)(
        { transcript_id: tid, owner_id: owner, started_at: at, origin: 'replay' },
        ctx(`live.${tid}.start`),
      );
    await start(a, '2033-02-07T10:00:00.000Z');
    // b's end arrives before its start (two consumers side by side).
    await onLiveSessionEnded(store, logger)(
      { transcript_id: b, ended_at: '2033-02-07T10:05:00.000Z', final_count: 0 },
      ctx(`live.${b}.end`),
    );
    await start(b, '2033-02-07T10:01:00.000Z');

    const stats = adminStats(store, sources, () => new Date('2033-02-07T10:02:03.500Z'));
    const during = await stats();
    expect(during).toMatchObject({
      status: 'success',
      total_transcripts: 42,
      total_users: 7,
      deepgram_ws_count: 3,
      assemblyai_ws_count: 1,
    });
    expect(during.sessions_per_day_last_7).toEqual([
      { date: '2033-02-01', count: 2 },
      { date: '2033-02-02', count: 0 },
      { date: '2033-02-03', count: 0 },
      { date: '2033-02-04', count: 0 },
      { date: '2033-02-05', count: 0 },
      { date: '2033-02-06', count: 0 },
      { date: '2033-02-07', count: 5 },
    ]);
    const mine = during.active_sessions.filter((s) => s.owner_id === owner);
    expect(mine).toEqual([
      {
        session_id: a,
        transcript_id: a,
        owner_id: owner,
        start_time: '2033-02-07T10:00:00.000Z',
        duration_seconds: 123,
      },
    ]);

    await onLiveSessionEnded(store, logger)(
      { transcript_id: a, ended_at: '2033-02-07T10:03:00.000Z', final_count: 0 },
      ctx(`live.${a}.end`),
    );
    const after = await stats();
    expect(after.active_sessions.filter((s) => s.owner_id === owner)).toEqual([]);
    expect(after.active_sessions_count).toBe(during.active_sessions_count - 1);
  });
});
