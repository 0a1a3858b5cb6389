import {
  speechStreamRecordedEvent,
  type SessionUsage,
  type SpeechStreamRecorded,
} from '@chronicler/contracts';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAiRequest } from '../../services/shared/ai/src/usage.ts';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

/** GET /api/transcripts/{id}/usage: what one session cost, from the usage the ledger already keeps. */
describe(`what a session cost (${testMode} mode)`, () => {
  let system: TestSystem;
  let alice: { token: string; id: string };
  let bob: { token: string; id: string };

  beforeAll(async () => {
    system = await startSystem({
      env: { AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false', SPEECH_PRICE_PER_MINUTE_USD: '0.0043' },
    });
    const a = await localSignIn(system.url, 'alice');
    const b = await localSignIn(system.url, 'bob');
    alice = { token: a.cookie, id: a.body.user?.id ?? '' };
    bob = { token: b.cookie, id: b.body.user?.id ?? '' };
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  const api = <T = Record<string, unknown>>(method: string, path: string, token?: string, body?: unknown) =>
    apiCall<T>(system.url, method, path, token, body);
  const usage = async (id: string) =>
    (await api<SessionUsage>('GET', `/transcripts/${id}/usage`, alice.token)).body;
  const paste = async (name: string) => {
    const r = await api<{ id: string }>('POST', '/transcripts/manual', alice.token, {
      name,
      session_date: '2026-11-20',
      transcript: '[00:00:01] GM: The road is dark.\n[00:00:05] Ana: I light a torch.',
    });
    expect(r.status).toBe(200);
    return r.body.id;
  };

  it('costs $0 with the offline fallback, its recap counted as a request', async () => {
    const id = await paste('Offline');
    expect(await usage(id)).toMatchObject({
      total_cost_usd: 0,
      ai: { requests: 0 },
      speech: { basis: 'none' },
    });
    const gen = await api('POST', `/transcripts/${id}/generate-summary`, alice.token);
    expect(gen.status).toBe(200);
    await waitFor(async () => (await usage(id)).ai.requests === 1);
    const u = await usage(id);
    expect(u.ai.by_type.map((t) => [t.request_type, t.requests, t.cost_usd])).toEqual([
      ['session_summary', 1, 0],
    ]);
    expect(u.total_cost_usd).toBe(0);
  });

  it('prices the speech streams per speaker and the model requests about the session', async () => {
    const id = await paste('Priced');
    const bus = system.platform!.bus;
    const stream = (speaker: string, index: number, seconds: number): SpeechStreamRecorded => ({
      record_id: `stream:${id}:${speaker}:${index}`,
      owner_id: alice.id,
      transcript_id: id,
      speaker_key: speaker,
      provider: 'deepgram',
      seconds,
      recorded_at: new Date().toISOString(),
    });
    for (const s of [stream('a', 0, 600), stream('a', 1, 60), stream('b', 0, 300)]) {
      await bus.publishDurable(speechStreamRecordedEvent.subject, s, { msgId: s.record_id });
    }
    await recordAiRequest(bus, {
      userId: alice.id,
      type: 'chat',
      transcriptId: id,
      model: 'gpt-test',
      inputTokens: 1000,
      outputTokens: 200,
      costUsd: 0.0012,
      success: true,
      ms: 10,
    });
    // Another session's request is not this one's.
    await recordAiRequest(bus, {
      userId: alice.id,
      type: 'planning',
      model: 'gpt-test',
      inputTokens: 1,
      outputTokens: 1,
      costUsd: 0.5,
      success: true,
      ms: 10,
    });
    await waitFor(async () => {
      const u = await usage(id);
      return u.speech.per_speaker.length === 2 && u.speech.seconds === 960 && u.ai.requests === 1;
    });
    const u = await usage(id);
    // 960 s = 16 min at $0.0043 = $0.0688; with the chat's $0.0012: $0.07.
    expect(u.speech).toMatchObject({
      basis: 'streams',
      seconds: 960,
      providers: ['deepgram'],
      price_per_minute_usd: 0.0043,
      cost_usd: 0.0688,
    });
    expect(u.speech.per_speaker).toEqual([
      { speaker_key: 'a', streams: 2, seconds: 660 },
      { speaker_key: 'b', streams: 1, seconds: 300 },
    ]);
    expect(u.ai).toMatchObject({ requests: 1, input_tokens: 1000, output_tokens: 200, cost_usd: 0.0012 });
    expect(u.total_cost_usd).toBe(0.07);
  });

  it('answers 404 for another user’s session and for no such id', async () => {
    const id = await paste('Mine');
    expect((await api('GET', `/transcripts/${id}/usage`, bob.token)).status).toBe(404);
    expect((await api('GET', `/transcripts/${randomUUID()}/usage`, alice.token)).status).toBe(404);
    expect((await api('GET', `/transcripts/not-an-id/usage`, alice.token)).status).toBe(404);
  });
});
