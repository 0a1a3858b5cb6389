import { aiRequestRecordedEvent, type AiRequestRecorded, type UserStats } from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAiRequest } from '../../services/shared/ai/src/usage.ts';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

/** AI usage records published by the engines reach the admin-stats ledger and /users/stats. */
describe(`AI request usage records (${testMode} mode)`, () => {
  let system: TestSystem;
  let dora: { token: string; id: string };

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true' } });
    const r = await localSignIn(system.url, 'dora');
    dora = { token: r.cookie, id: r.body.user?.id ?? '' };
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  type Row = {
    record_id: string;
    user_id: string;
    request_type: string;
    model: string;
    input_tokens: number;
    output_tokens: number;
    estimated_cost_usd: string;
    success: boolean;
    processing_time_ms: number;
  };
  const rowsOf = (userId: string): Promise<Row[]> =>
    system.platform!.db.query(
      `select record_id, user_id, request_type, model, input_tokens, output_tokens,
              estimated_cost_usd::text as estimated_cost_usd, success, processing_time_ms
         from admin_stats.ai_requests where user_id = $1 order by created_at, record_id`,
      [userId],
    );
  const today = () => new Date().toISOString().slice(0, 10);
  const aiTotal = async (): Promise<number> => {
    const res = await fetch(`${system.url}/api/users/stats?start=${today()}&end=${today()}`, {
      headers: { authorization: `Bearer ${dora.token}` },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as UserStats).ai_requests_total;
  };

  it('keeps one ledger row per recorded request, failed ones included, and counts them in /users/stats', async () => {
    expect(await aiTotal()).toBe(0);
    const bus = system.platform!.bus;
    await recordAiRequest(bus, {
      userId: dora.id,
      type: 'chat',
      model: 'gpt-test',
      inputTokens: 1200,
      outputTokens: 300,
      costUsd: 0.0002,
      success: true,
      ms: 850,
    });
    await recordAiRequest(bus, {
      userId: dora.id,
      type: 'session_summary',
      model: 'gpt-test',
      inputTokens: 5000,
      outputTokens: 0,
      costUsd: 0.0005,
      success: false,
      ms: 120,
    });
    await waitFor(async () => (await rowsOf(dora.id)).length === 2);
    const rows = await rowsOf(dora.id);
    expect(rows.map(({ record_id: _id, ...r }) => r).sort((a, b) => a.input_tokens - b.input_tokens)).toEqual(
      [
        {
          user_id: dora.id,
          request_type: 'chat',
          model: 'gpt-test',
          input_tokens: 1200,
          output_tokens: 300,
          estimated_cost_usd: '0.0002',
          success: true,
          processing_time_ms: 850,
        },
        {
          user_id: dora.id,
          request_type: 'session_summary',
          model: 'gpt-test',
          input_tokens: 5000,
          output_tokens: 0,
          estimated_cost_usd: '0.0005',
          success: false,
          processing_time_ms: 120,
        },
      ],
    );
    expect(await aiTotal()).toBe(2);

    // A record that reaches the ledger twice (a producer's retry under another message id)
    // is kept once by its record id; a marker published after it shows it was handled.
    const again: AiRequestRecorded = {
      record_id: rows[0]!.record_id,
      user_id: dora.id,
      request_type: 'chat',
      model: 'gpt-test',
      input_tokens: 99_999,
      output_tokens: 1,
      estimated_cost_usd: 9,
      success: true,
      processing_time_ms: 1,
      created_at: new Date().toISOString(),
    };
    await bus.publishDurable(aiRequestRecordedEvent.subject, again, { msgId: `${again.record_id}:retry` });
    await recordAiRequest(bus, {
      userId: dora.id,
      type: 'planning',
      model: 'offline',
      inputTokens: 10,
      outputTokens: 10,
      costUsd: 0,
      success: true,
      ms: 3,
    });
    await waitFor(async () => (await rowsOf(dora.id)).some((r) => r.request_type === 'planning'));
    const after = await rowsOf(dora.id);
    expect(after).toHaveLength(3);
    expect(after.find((r) => r.record_id === again.record_id)!.input_tokens).toBe(rows[0]!.input_tokens);
    expect(await aiTotal()).toBe(3);
  });
});
