import {
  transcriptionRecordedEvent,
  type TranscriptionRecorded,
  type UserStats,
} from '@chronicler/contracts';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

describe(`GET /api/users/stats (${testMode} mode)`, () => {
  let system: TestSystem;
  let alice: { token: string; id: string };
  let bob: { token: string; id: string };
  let carol: { token: string; id: string };

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true' } });
    const signIn = async (name: string) => {
      const r = await localSignIn(system.url, name);
      return { token: r.cookie, id: r.body.user?.id ?? '' };
    };
    alice = await signIn('alice');
    bob = await signIn('bob');
    carol = await signIn('carol');
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  const stats = async (
    token: string | undefined,
    query = '',
  ): Promise<{ status: number; body: UserStats & { detail?: string } }> => {
    const res = await fetch(`${system.url}/api/users/stats${query}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { status: res.status, body: (await res.json()) as UserStats & { detail?: string } };
  };

  const record = (
    ownerId: string,
    seconds: number,
    recordedAt: string,
    extra: Partial<TranscriptionRecorded> = {},
  ): TranscriptionRecorded => ({
    record_id: `audio:${randomUUID()}`,
    owner_id: ownerId,
    transcript_id: randomUUID(),
    source: 'audio',
    provider: 'deepgram',
    seconds,
    recorded_at: recordedAt,
    ...extra,
  });

  const publish = (r: TranscriptionRecorded, msgId = r.record_id) =>
    system.platform!.bus.publishDurable(transcriptionRecordedEvent.subject, r, { msgId });

  const ledgerRows = async (): Promise<{ record_id: string; owner_id: string; seconds: number }[]> =>
    system.platform!.db.query('select record_id, owner_id, seconds from admin_stats.transcription_usage');

  const waitForLedger = (recordIds: string[]) =>
    waitFor(async () => {
      const ids = new Set((await ledgerRows()).map((r) => r.record_id));
      return recordIds.every((id) => ids.has(id));
    });

  it('answers 401 without a signed-in user', async () => {
    expect((await stats(undefined)).status).toBe(401);
  });

  it('gives a user without usage zero hours and zero requests', async () => {
    expect(await stats(carol.token, '?start=2026-03-01&end=2026-03-31')).toEqual({
      status: 200,
      body: { transcription_hours: 0, ai_requests_total: 0 },
    });
  });

  it("counts the owner's recorded seconds from the start day to the end of the end day, once per record", async () => {
    const atStart = record(alice.id, 3600, '2026-03-01T00:00:00.000Z');
    const atEndOfEnd = record(alice.id, 1800, '2026-03-31T23:59:59.999Z', {
      source: 'live',
      provider: 'assemblyai',
    });
    const dayAfter = record(alice.id, 7200, '2026-04-01T00:00:00.000Z');
    const dayBefore = record(alice.id, 900, '2026-02-28T23:59:59.000Z');
    // Local time with an offset: 2026-03-15 01:00 in Paris is 2026-03-15 00:00 UTC.
    const withOffset = record(alice.id, 360, '2026-03-15T01:00:00+01:00');
    const bobs = record(bob.id, 36_000, '2026-03-15T12:00:00.000Z');
    for (const r of [atStart, atEndOfEnd, dayAfter, dayBefore, withOffset, bobs]) {
      expect((await publish(r)).duplicate).toBe(false);
    }
    await waitForLedger([atStart, atEndOfEnd, dayAfter, dayBefore, withOffset, bobs].map((r) => r.record_id));

    const march = await stats(alice.token, '?start=2026-03-01&end=2026-03-31');
    expect(march.status).toBe(200);
    expect(march.body.transcription_hours).toBeCloseTo((3600 + 1800 + 360) / 3600, 10);
    expect(march.body.ai_requests_total).toBe(0);
    expect((await stats(alice.token, '?start=2026-03-01&end=2026-03-01')).body.transcription_hours).toBe(1);
    expect((await stats(alice.token, '?start=2026-03-31&end=2026-03-31')).body.transcription_hours).toBe(0.5);
    expect((await stats(alice.token, '?start=2026-03-15&end=2026-03-15')).body.transcription_hours).toBe(0.1);
    expect((await stats(alice.token, '?start=2026-04-01&end=2026-04-01')).body.transcription_hours).toBe(2);
    expect((await stats(alice.token, '?start=2026-02-28&end=2026-04-01')).body.transcription_hours).toBe(
      (900 + 3600 + 1800 + 360 + 7200) / 3600,
    );
    expect((await stats(alice.token, '?start=2026-04-02&end=2026-04-30')).body.transcription_hours).toBe(0);
    // Another user's usage is theirs alone.
    expect(await stats(bob.token, '?start=2026-03-01&end=2026-03-31')).toEqual({
      status: 200,
      body: { transcription_hours: 10, ai_requests_total: 0 },
    });

    // The bus drops a re-publish with the same message id...
    expect((await publish({ ...atStart, seconds: 99_999 })).duplicate).toBe(true);
    // ...and one that gets through under another message id (a producer's retry after the
    // duplicate window) is kept once by its record id. The marker, published after it, is
    // consumed after it, so once the marker is in the ledger the retry has been handled.
    await publish({ ...atStart, seconds: 99_999 }, `${atStart.record_id}:retry`);
    const marker = record(carol.id, 0, '2020-01-01T00:00:00.000Z');
    await publish(marker);
    await waitForLedger([marker.record_id]);
    const rows = (await ledgerRows()).filter((r) => r.record_id === atStart.record_id);
    expect(rows).toEqual([{ record_id: atStart.record_id, owner_id: alice.id, seconds: 3600 }]);
    expect((await stats(alice.token, '?start=2026-03-01&end=2026-03-01')).body.transcription_hours).toBe(1);
  });

  it("counts the owner's AI requests in the window, failed ones too", async () => {
    const db = system.platform!.db;
    const insert = (userId: string, createdAt: string, success = true) =>
      db.query(
        `insert into admin_stats.ai_requests
                (record_id, user_id, request_type, model, input_tokens, output_tokens,
                 estimated_cost_usd, success, processing_time_ms, created_at)
         values ($1, $2, 'chat', 'gpt-4.1-nano', 1200, 300, 0.0002, $3, 850, $4)`,
        [randomUUID(), userId, success, createdAt],
      );
    await insert(bob.id, '2026-05-01T00:00:00.000Z');
    await insert(bob.id, '2026-05-31T23:59:59.000Z', false);
    await insert(bob.id, '2026-06-01T00:00:00.000Z');
    await insert(alice.id, '2026-05-10T00:00:00.000Z');
    expect(await stats(bob.token, '?start=2026-05-01&end=2026-05-31')).toEqual({
      status: 200,
      body: { transcription_hours: 0, ai_requests_total: 2 },
    });
    expect((await stats(alice.token, '?start=2026-05-01&end=2026-05-31')).body.ai_requests_total).toBe(1);
  });

  it('uses the last 30 days up to today (UTC) when no dates are given', async () => {
    const now = Date.now();
    const recent = record(carol.id, 5400, new Date(now - 2 * DAY_MS).toISOString());
    const firstDay = record(carol.id, 1800, `${utcDay(now - 30 * DAY_MS)}T00:00:00.000Z`);
    const tooOld = record(carol.id, 3600, `${utcDay(now - 31 * DAY_MS)}T23:59:59.000Z`);
    for (const r of [recent, firstDay, tooOld]) await publish(r);
    await waitForLedger([recent, firstDay, tooOld].map((r) => r.record_id));

    expect(await stats(carol.token)).toEqual({
      status: 200,
      body: { transcription_hours: 2, ai_requests_total: 0 },
    });
    // An end alone counts back 30 days from it; empty parameters are the defaults.
    expect((await stats(carol.token, `?end=${utcDay(now)}`)).body.transcription_hours).toBe(2);
    expect((await stats(carol.token, '?start=&end=')).body.transcription_hours).toBe(2);
    expect(
      (await stats(carol.token, `?start=${utcDay(now - 31 * DAY_MS)}&end=${utcDay(now)}`)).body
        .transcription_hours,
    ).toBe(3);
  });

  it('refuses invalid dates, a start after the end and a range over 366 days', async () => {
    const refused = async (query: string, detail: string) => {
      expect(await stats(alice.token, query)).toEqual({ status: 400, body: { detail } });
    };
    await refused('?start=2026-13-01&end=2026-12-31', 'Invalid start date. Use YYYY-MM-DD.');
    await refused('?start=yesterday&end=2026-03-01', 'Invalid start date. Use YYYY-MM-DD.');
    await refused('?start=2026-02-01&end=2026-02-30', 'Invalid end date. Use YYYY-MM-DD.');
    await refused('?start=2026-02-01&end=2026-3-01', 'Invalid end date. Use YYYY-MM-DD.');
    await refused('?end=03/01/2026', 'Invalid end date. Use YYYY-MM-DD.');
    await refused('?start=2026-03-02&end=2026-03-01', 'Start date must be on or before end date.');
    await refused('?start=2025-01-01&end=2026-01-02', 'Date range cannot exceed 366 days.');
    // A leap year is exactly 366 days: allowed.
    expect((await stats(alice.token, '?start=2024-01-01&end=2024-12-31')).status).toBe(200);
  });
});
