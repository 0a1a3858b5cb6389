// A campaign with a small model: an OpenAI-compatible server (the local peer) that runs its
// model with a 4,096-token context and says so on /v1/models, as vLLM does, under the default
// limits (30 AI requests a minute per user). Recaps of long sessions, recaps that know the
// campaign, answers that miss their schema, and questions asked across the campaign.
import { isOfflineAiText, type AskAnswer, type Group, type TranscriptListItem } from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homeGameTranscript } from '../eval/home-game.ts';
import { startOpenAiPeer, type OpenAiPeer } from '../peers/openai.ts';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { crd3Transcript } from '../support/crd3.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

const CONTEXT = 4_096;
/** AI_RATE_LIMIT_PER_MINUTE's default, left unset here. */
const DEFAULT_AI_LIMIT = 30;

describe(`a campaign on a ${CONTEXT}-token model under the default limits (${testMode} mode)`, () => {
  let peer: OpenAiPeer;
  let system: TestSystem;
  let token: string;
  let group: Group;
  let long: TranscriptListItem;
  let later: TranscriptListItem;
  const home = homeGameTranscript();

  const api = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
    apiCall<T>(system.url, method, path, token, body);
  const generate = (id: string) =>
    api<{ id: string; summary: string }>('POST', `/transcripts/${id}/generate-summary`);
  const create = async (name: string, transcript: string, date: string) => {
    const res = await api<TranscriptListItem>('POST', '/transcripts/manual', {
      name,
      session_date: date,
      transcript,
      group_id: group.id,
    });
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    peer = await startOpenAiPeer();
    peer.modelInfo = { flavour: 'vllm', contextTokens: CONTEXT, numCtx: null, loadedContext: null };
    system = await startSystem({
      // Automatic summaries off: each request the peer gets is one a test made.
      env: { ...peer.env('small-model'), AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false' },
    });
    token = (await localSignIn(system.url, 'small-model-gm')).cookie;
    group = (await api<Group>('POST', '/groups', { name: 'Mines of Kraghammer' })).body;
    const links = [{ speaker: 'TRAVIS', character: 'Grog' }];
    expect((await api('PUT', `/groups/${group.id}/characters`, { links })).status).toBe(200);
    long = await create(
      'Into the mines',
      crd3Transcript('C1E005', { timed: true, secondsPerTurn: 5 }),
      '2015-03-19T00:00:00.000Z',
    );
    later = await create('Whisperwood', home.transcript, '2015-03-26T00:00:00.000Z');
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
    await peer?.close();
  });

  it('recaps a 4-hour session in many calls, none over the context, counted as one request against the AI limit', async () => {
    const res = await generate(long.id);
    expect(res.status).toBe(200);
    expect(res.body.summary).toContain('### Story');
    expect(isOfflineAiText(res.body.summary)).toBe(false);
    // More calls than the per-minute limit allows requests: the recap counted once.
    expect(peer.requests.length).toBeGreaterThan(DEFAULT_AI_LIMIT);
    for (const r of peer.requests) {
      expect(r.status).toBe(200);
      expect(r.overContext).toBe(false);
      expect(r.promptTokens + (r.maxTokens ?? 0)).toBeLessThanOrEqual(CONTEXT);
    }
    // The user's next question is not refused.
    const before = peer.requests.length;
    const chat = await api<{ response: string }>('POST', '/chat', {
      transcript_id: long.id,
      messages: [{ role: 'user', content: 'How much gold did they find on the duergar bodies?' }],
    });
    expect(chat.status).toBe(200);
    expect(peer.requests.length).toBe(before + 1);
    // The chat got passages of the session, never the whole 4-hour transcript.
    expect(peer.requests.at(-1)!.promptTokens + (peer.requests.at(-1)!.maxTokens ?? 0)).toBeLessThanOrEqual(
      CONTEXT,
    );
    expect(peer.requests.at(-1)!.messages[0]!.content).toContain(
      'Transcript passages relevant to the question',
    );
  }, 300_000);

  it('writes a later session’s recap knowing the campaign: the party, the names and threads of the one before', async () => {
    const previous = (await api<{ summary: string }>('GET', `/transcripts/${long.id}`)).body.summary;
    const person = /^- \*\*([^*]+)\*\*/m.exec(previous.split('### People met\n')[1]!)![1]!;
    const thread = previous.split('### Open threads and hooks\n')[1]!.split('\n')[0]!.replace(/^- /, '');
    const before = peer.requests.length;
    const res = await generate(later.id);
    expect(res.status).toBe(200);
    const sent = peer.requests.slice(before).map((r) => r.messages.map((m) => m.content).join('\n'));
    expect(sent.length).toBeGreaterThan(0);
    for (const prompt of sent) {
      expect(prompt).toContain(
        'Campaign: Mines of Kraghammer. What it already knows, from earlier sessions:',
      );
      expect(prompt).toMatch(/Known names \(spell them so\): [^\n]*Grog/);
      expect(prompt).toContain(person);
      expect(prompt).toContain(`Open threads before this session:\n- ${thread}`);
      expect(prompt).toContain('The previous session, Into the mines (2015-03-19)');
    }
  });

  it('answers a recap the model cannot shape with the offline digest and a notice, after a repair try', async () => {
    const edited = await api('PUT', `/transcripts/${later.id}`, {
      name: 'Whisperwood',
      summary: '',
      transcript: `${home.transcript}\n[00:59:00] GM: The barge leaves without you.`,
    });
    expect(edited.status).toBe(200);
    const before = peer.requests.length;
    peer.answers.push('I would rather tell a story.', 'Still a story, no JSON.');
    const res = await generate(later.id);
    expect(res.status).toBe(200);
    expect(peer.requests.length).toBe(before + 2);
    expect(peer.requests.at(-1)!.messages[0]!.content).toMatch(
      /^The JSON below was meant to match the schema/,
    );
    expect(isOfflineAiText(res.body.summary)).toBe(true);
    expect(res.body.summary).toContain('answered in a form Chronicler could not read');
    expect(res.body.summary).toContain('### Key moments');
  });

  it('answers a question across the campaign in words, its citations linking to the moments', async () => {
    const time = home.times[48]!;
    peer.answers.push(
      `Mother Sallow, a hag, has hunted the crown for years [S2 ${time}]; nothing at [S1 09:59:59].`,
    );
    const before = peer.requests.length;
    const res = await api<AskAnswer>('POST', `/groups/${group.id}/ask`, {
      question: 'Who is hunting the crown?',
    });
    expect(res.status).toBe(200);
    const link = `/sessions/${later.id}#t=${time}`;
    expect(res.body.answer).toBe(
      `Mother Sallow, a hag, has hunted the crown for years [Whisperwood ${time}](${link}); nothing at [S1 09:59:59].`,
    );
    expect(res.body.citations).toEqual([
      {
        transcript_id: later.id,
        transcript_name: 'Whisperwood',
        seconds: expect.any(Number),
        line: 48,
        link,
      },
    ]);
    expect(peer.requests.length).toBe(before + 1);
    const prompt = peer.requests.at(-1)!.messages[0]!.content;
    expect(prompt).toContain('## S2: Whisperwood (2015-03-26)');
    expect(prompt).toContain(`[${time}] GM: Grub sulks but says his boss, a hag named Mother Sallow`);
    expect(peer.requests.at(-1)!.overContext).toBe(false);
  });
});
