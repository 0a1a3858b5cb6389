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
      env: { ...peer.env('campaign-model-1'), AUTH_LOCAL_ENABLED: 'true' },
    });
    token = (await localSignIn(system.url, 'keyleth')).cookie;
    const created = await apiCall<TranscriptListItem>(system.url, 'POST', '/transcripts/manual', token, {
      name: 'Arrival at Kraghammer',
      session_date: '2015-03-12T00:00:00.000Z',
      transcript: crd3Transcript('C1E001', { timed: true, maxChars: 8000 }),
    });
    expect(created.status).toBe(200);
    session = created.body;
    // Its automatic summary first, so the answers a test queues are the ones its requests get.
    await summarized(session.id);
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
    await peer?.close();
  });

  const get = (id: string) =>
    apiCall<{ summary: string; content: string }>(system.url, 'GET', `/transcripts/${id}`, token);
  const summarized = (id: string) => waitFor(async () => (await get(id)).body.summary !== '', 60_000);
  const generate = (id: string) =>
    apiCall<{ id: string; summary: string }>(
      system.url,
      'POST',
      `/transcripts/${id}/generate-summary`,
      token,
    );
  const recap = (time: string) =>
    JSON.stringify({
      story: ['Vox Machina arrives in Kraghammer.'],
      key_moments: [{ time, text: 'The gates open' }],
      people: [{ name: 'Kima', note: 'a missing paladin' }],
      places: [{ name: 'Kraghammer', note: 'a dwarven city' }],
      loot: [],
      threads: ['Where is Kima?'],
      quotes: [],
    });

  it('answers chat with the configured model at temperature 0.7, citations linking to the moment', async () => {
    const line = session && (await get(session.id)).body.content.split('\n')[3]!;
    const time = line.slice(1, 9);
    peer.answers.push(`Matt welcomes everyone at [${time}]; nothing happens at [09:59:59].`);
    const before = peer.requests.length;
    const res = await apiCall<{ response: string }>(system.url, 'POST', '/chat', token, {
      transcript_id: session.id,
      messages: [{ role: 'user', content: 'Who opens the session?' }],
    });
    expect(res.status).toBe(200);
    expect(res.body.response).toBe(
      `Matt welcomes everyone at [${time}](/sessions/${session.id}#t=${time}); nothing happens at [09:59:59].`,
    );
    const sent = peer.requests[before]!;
    expect(sent.model).toBe('campaign-model-1');
    expect(sent.temperature).toBe(0.7);
    expect(sent.messages.map((m) => m.content).join('\n')).toContain(line);
  });

  it('recaps a session with the model in sections with time links, once per version of its content', async () => {
    const before = peer.requests.length;
    const automatic = (await get(session.id)).body;
    // Unchanged since its automatic summary: that recap, no model call.
    const same = await generate(session.id);
    expect(same.status).toBe(200);
    expect(same.body.summary).toBe(automatic.summary);
    expect(peer.requests.length).toBe(before);
    // New content, a new recap.
    const edited = await apiCall(system.url, 'PUT', `/transcripts/${session.id}`, token, {
      name: 'Arrival at Kraghammer',
      summary: automatic.summary,
      transcript: `${automatic.content}\n[02:00:00] MATT: The gates of Kraghammer open.`,
    });
    expect(edited.status).toBe(200);
    peer.answers.push(recap('02:00:00'));
    const res = await generate(session.id);
    expect(res.status).toBe(200);
    expect(res.body.summary).toContain('### Story\nVox Machina arrives in Kraghammer.');
    expect(res.body.summary).toContain(`The gates open [[02:00:00]](/sessions/${session.id}#t=02:00:00)`);
    expect(res.body.summary).toContain('**Kima**: a missing paladin');
    expect((await get(session.id)).body.summary).toBe(res.body.summary);
    expect(peer.requests.length).toBe(before + 1);
    expect(peer.requests.at(-1)!.responseFormat).toBe('json_schema');
    expect((await generate(session.id)).body.summary).toBe(res.body.summary);
    expect(peer.requests.length).toBe(before + 1);
  });

  it('calls the model once for a new session’s automatic summary and a Generate of the same content', async () => {
    const before = peer.requests.length;
    const created = await apiCall<TranscriptListItem>(system.url, 'POST', '/transcripts/manual', token, {
      name: 'Into the mines',
      session_date: '2015-03-19T00:00:00.000Z',
      transcript: crd3Transcript('C1E005', { timed: true, maxChars: 6000 }),
    });
    expect(created.status).toBe(200);
    // Generate while the automatic one may still run: it joins or finds it.
    const pressed = await generate(created.body.id);
    expect(pressed.status).toBe(200);
    await summarized(created.body.id);
    expect((await get(created.body.id)).body.summary).toBe(pressed.body.summary);
    expect(peer.requests.length).toBe(before + 1);
  });

  it('counts each model request for the user', async () => {
    await waitFor(async () => {
      const stats = await apiCall<{ ai_requests_total: number }>(system.url, 'GET', '/users/stats', token);
      return stats.body.ai_requests_total === peer.requests.length;
    }, 20_000);
    expect(peer.requests.length).toBeGreaterThanOrEqual(2);
  });
});
