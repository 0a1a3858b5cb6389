import {
  formatTranscriptLine,
  type CharacterRecap,
  type Codex,
  type CreatedShare,
  type Previously,
  type SharedView,
} from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiPeer, type OpenAiPeer } from '../peers/openai.ts';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { CAMPAIGN_LINKS, SESSION_TWO } from '../support/codex-campaign.ts';
import { crd3Turns } from '../support/crd3.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

// The codex and the stories with an OpenAI-compatible model of a small context (4,096 tokens):
// a session is read in parts that each fit, one after the other, each given the codex so far;
// what the model names is placed at the lines that say it (a name the text never says is left
// out); a version already read is not sent again; a shared story is written once.
describe(`the campaign codex with a model (${testMode} mode)`, () => {
  let peer: OpenAiPeer;
  let system: TestSystem;
  let alice: string;
  let group = '';
  let arrival = '';

  const api = <T = Record<string, unknown>>(method: string, path: string, token?: string, body?: unknown) =>
    apiCall<T>(system.url, method, path, token, body);
  // CRD3 C1E001 (Critical Role Dungeons and Dragons Dataset, CC BY-SA 4.0), the arrival in Kraghammer.
  const transcript = crd3Turns('C1E001')
    .slice(51, 190)
    .map((t, i) => formatTranscriptLine({ seconds: 1200 + i * 6, speaker: t.speaker, text: t.text }))
    .join('\n');
  const entries = JSON.stringify({
    entries: [
      { kind: 'place', name: 'Kraghammer', aliases: [], description: 'A dwarven city under the mountains.' },
      {
        kind: 'place',
        name: 'Pig Pits',
        aliases: [],
        description: 'Where a guard sends the party to sleep.',
      },
      { kind: 'person', name: 'Zorblax the Unsaid', aliases: [], description: 'Nobody says this name.' },
      {
        kind: 'thread',
        name: 'Find Lady Kima',
        aliases: [],
        description: 'Allura asked the party to find her.',
      },
    ],
  });

  beforeAll(async () => {
    peer = await startOpenAiPeer();
    peer.modelInfo.contextTokens = 4_096;
    system = await startSystem({
      env: { ...peer.env('codex-model'), AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false' },
    });
    alice = (await localSignIn(system.url, 'alice')).cookie;
    group = (await api<{ id: string }>('POST', '/groups', alice, { name: 'Kraghammer' })).body.id;
    await api('PUT', `/groups/${group}/characters`, alice, { links: CAMPAIGN_LINKS });
    arrival = (
      await api<{ id: string }>('POST', '/transcripts/manual', alice, {
        name: 'Arrival',
        session_date: '2026-03-01',
        summary: 'The party reaches Kraghammer and looks for a bed.',
        transcript,
        group_id: group,
      })
    ).body.id;
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
    await peer?.close();
  });

  const settled = async (): Promise<Codex> => {
    let last: Codex | undefined;
    await waitFor(
      async () => {
        last = (await api<Codex>('GET', `/groups/${group}/codex`, alice)).body;
        return !last.updating && last.sessions_read === last.sessions_total;
      },
      60_000,
      250,
    );
    return last!;
  };

  it('reads a session in parts that fit the context, each given the codex so far, once per version', async () => {
    for (let i = 0; i < 12; i++) peer.answers.push(entries);
    const before = peer.requests.length;
    const c = await settled();
    const sent = peer.requests.slice(before);
    peer.answers.length = 0;
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.every((r) => r.status === 200 && !r.overContext && r.schema !== undefined)).toBe(true);
    expect(sent[0]!.messages.map((m) => m.content).join('\n')).toContain('The codex is empty so far.');
    // The second part is read knowing what the first found.
    expect(sent[1]!.messages.map((m) => m.content).join('\n')).toMatch(
      /The codex so far:[\s\S]*place: Kraghammer/,
    );
    const kraghammer = c.entries.find((e) => e.name === 'Kraghammer')!;
    expect(kraghammer).toMatchObject({ kind: 'place', description: 'A dwarven city under the mountains.' });
    expect(kraghammer.mentions.length).toBeGreaterThan(1);
    expect(kraghammer.mentions[0]!.link).toMatch(new RegExp(`^/sessions/${arrival}#t=00:\\d\\d:\\d\\d$`));
    expect(c.entries.map((e) => e.name)).not.toContain('Zorblax the Unsaid');
    expect(c.entries.find((e) => e.kind === 'thread')?.name).toBe('Find Lady Kima');

    // Asked again with nothing new: nothing is sent to the model.
    const again = peer.requests.length;
    await settled();
    expect(peer.requests.length).toBe(again);
  });

  it('writes a character\'s story and "previously on" with the model, once for a shared link', async () => {
    await settled();
    const second = (
      await api<{ id: string }>('POST', '/transcripts/manual', alice, {
        name: 'The split',
        session_date: '2026-03-08',
        summary: 'Bryn books passage with Oskar Brandt while Kestrel reads in the archive.',
        transcript: SESSION_TWO,
        group_id: group,
      })
    ).body.id;
    peer.answers.push(
      JSON.stringify({
        entries: [{ kind: 'person', name: 'Ilse Marr', aliases: ['Ilse'], description: 'The archivist.' }],
      }),
    );
    await settled();
    peer.answers.length = 0;

    const lineTime = SESSION_TWO.split('\n')[9]!.slice(1, 9);
    peer.answers.push(
      JSON.stringify({
        sessions: [
          {
            number: 1,
            story: 'Kestrel searched the archive and learnt where the crown came from.',
            moments: [{ time: lineTime, text: 'Ilse shows the ledger' }],
          },
        ],
      }),
    );
    const before = peer.requests.length;
    const recap = await api<CharacterRecap>(
      'GET',
      `/groups/${group}/character-recap?character=Kestrel`,
      alice,
    );
    expect(recap.status).toBe(200);
    expect(recap.body.text).toContain('Kestrel searched the archive');
    expect(recap.body.text).toContain(`[[${lineTime}]](/sessions/${second}#t=${lineTime})`);
    const prompt = peer.requests[before]!.messages.map((m) => m.content).join('\n');
    // What Kestrel did not witness is never sent: Bryn's harbour scene.
    expect(prompt).toContain('Ilse');
    expect(prompt).not.toContain('Oskar');
    expect(peer.requests.length - before).toBe(1);

    peer.answers.push(
      JSON.stringify({
        story: ['Last time the party split up.'],
        threads: ['Return the crown before the new moon.'],
      }),
    );
    const previously = await api<Previously>('GET', `/groups/${group}/previously`, alice);
    expect(previously.body.text).toContain('Last time the party split up.');
    expect(previously.body.session?.id).toBe(second);

    peer.answers.push(JSON.stringify({ story: ['For the players: the party split up.'], threads: [] }));
    const link = await api<CreatedShare>('POST', `/groups/${group}/previously/shares`, alice, {});
    const sent = peer.requests.length;
    const first = await api<SharedView>('GET', link.body.path);
    const second2 = await api<SharedView>('GET', link.body.path);
    expect(first.status).toBe(200);
    expect(second2.body).toEqual(first.body);
    expect(peer.requests.length - sent).toBe(1);
  });
});
