import type { TranscriptListItem } from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiPeer, type OpenAiPeer } from '../peers/openai.ts';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { crd3Transcript } from '../support/crd3.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

// The same flows as with the offline engine, now answered by an OpenAI-compatible server:
// the services must really use it (model, temperature, answers) and record each request.
describe(`AI flows with an OpenAI-compatible server configured (${testMode} mode)`, () => {
  let peer: OpenAiPeer;
  let system: TestSystem;
  let token: string;
  let session: TranscriptListItem;

  beforeAll(async () => {
    peer = await startOpenAiPeer();
    system = await startSystem({
      // Automatic summaries off: every request the peer sees is one this test made.
      env: { ...peer.env('campaign-model-1'), AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false' },
    });
    token = (await localSignIn(system.url, 'keyleth')).cookie;
    const created = await apiCall<TranscriptListItem>(system.url, 'POST', '/transcripts/manual', token, {
      name: 'Arrival at Kraghammer',
      session_date: '2015-03-12T00:00:00.000Z',
      transcript: crd3Transcript('C1E001', { timed: true, maxChars: 8000 }),
    });
    expect(created.status).toBe(200);
    session = created.body;
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
    await peer?.close();
  });

  it('answers chat with the configured model at temperature 0.7, from the transcript', async () => {
    peer.answers.push('Matt welcomes everyone at [00:00:00].');
    const before = peer.requests.length;
    const res = await apiCall<{ response: string }>(system.url, 'POST', '/chat', token, {
      transcript_id: session.id,
      messages: [{ role: 'user', content: 'Who opens the session?' }],
    });
    expect(res.status).toBe(200);
    expect(res.body.response).toBe('Matt welcomes everyone at [00:00:00].');
    const sent = peer.requests[before]!;
    expect(sent.model).toBe('campaign-model-1');
    expect(sent.temperature).toBe(0.7);
    expect(sent.messages.map((m) => m.content).join('\n')).toContain('[00:00:00] MATT:');
  });

  it('generates a session summary with the model and keeps it', async () => {
    peer.answers.push('Vox Machina arrives in Kraghammer.');
    const res = await apiCall<{ id: string; summary: string }>(
      system.url,
      'POST',
      `/transcripts/${session.id}/generate-summary`,
      token,
    );
    expect(res.status).toBe(200);
    expect(res.body.summary).toBe('Vox Machina arrives in Kraghammer.');
    const stored = await apiCall<{ summary: string }>(system.url, 'GET', `/transcripts/${session.id}`, token);
    expect(stored.body.summary).toBe('Vox Machina arrives in Kraghammer.');
  });

  it('counts each model request for the user', async () => {
    await waitFor(async () => {
      const stats = await apiCall<{ ai_requests_total: number }>(system.url, 'GET', '/users/stats', token);
      return stats.body.ai_requests_total === peer.requests.length;
    }, 20_000);
    expect(peer.requests.length).toBeGreaterThanOrEqual(2);
  });
});
