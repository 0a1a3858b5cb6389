import type { SearchResults, TranscriptListItem } from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

const text = (hit: SearchResults['hits'][number]): string => hit.headline.map((f) => f.text).join('');
const marked = (hit: SearchResults['hits'][number]): string[] =>
  hit.headline.filter((f) => f.match).map((f) => f.text.toLowerCase());

describe(`GET /api/search (${testMode} mode)`, () => {
  let system: TestSystem;
  let alice: string;
  let bob: string;
  let dragons = '';
  let heist = '';
  let heistGroup = '';

  const api = <T = Record<string, unknown>>(method: string, path: string, token?: string, body?: unknown) =>
    apiCall<T>(system.url, method, path, token, body);
  const search = (token: string, query: Record<string, string>) =>
    api<SearchResults & { detail?: string }>(
      'GET',
      `/search?${new URLSearchParams(query).toString()}`,
      token,
    );

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false' } });
    alice = (await localSignIn(system.url, 'alice')).cookie;
    bob = (await localSignIn(system.url, 'bob')).cookie;
    const groups = await Promise.all(
      ['Dragon Campaign', 'Heist Campaign'].map(
        async (name) => (await api<{ id: string }>('POST', '/groups', alice, { name })).body.id,
      ),
    );
    heistGroup = groups[1]!;
    const create = async (body: Record<string, unknown>) =>
      (await api<TranscriptListItem>('POST', '/transcripts/manual', alice, body)).body.id;
    dragons = await create({
      name: 'The dragon wakes',
      session_date: '2026-01-10',
      group_id: groups[0],
      summary: 'The party meets a red dragon.',
      transcript:
        '[00:00:05] MATT: Welcome back.\n\n[00:12:34] Speaker 2: I cast fireball at the wyvern.\n' +
        '[01:02:03] LAURA: The wyvern flees into the mountains.',
    });
    heist = await create({
      name: 'Vault job',
      session_date: '2026-02-01',
      group_id: groups[1],
      transcript: 'MATT: The vault door is sealed.\nSAM: I pick the lock with my thieves tools.',
    });
    await api('PUT', `/transcripts/${heist}/notes`, alice, { content: 'Remember the marquet vault keys.' });
    // Bob says the same words in his own session: never in Alice's answers.
    await api('POST', '/transcripts/manual', bob, {
      name: 'Bob wyvern',
      session_date: '2026-01-05',
      transcript: '[00:00:01] BOB: wyvern vault fireball',
    });
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  it('finds a word said in a line, with its time, a highlighted excerpt and a link to the moment', async () => {
    const res = await search(alice, { q: 'fireball' });
    expect(res.status).toBe(200);
    expect(res.body.hits).toHaveLength(1);
    const [hit] = res.body.hits;
    expect(hit).toMatchObject({
      transcript_id: dragons,
      transcript_name: 'The dragon wakes',
      kind: 'line',
      line: 1,
      seconds: 754,
      link: `/sessions/${dragons}#t=00:12:34`,
    });
    expect(text(hit!)).toContain('I cast fireball at the wyvern');
    expect(marked(hit!)).toEqual(['fireball']);
    expect(res.body.next).toBeNull();
  });

  it('searches names, summaries and notes too, ranking a name above a line', async () => {
    const dragon = await search(alice, { q: 'dragon' });
    expect(dragon.body.hits.map((h) => h.kind)).toEqual(['name', 'summary']);
    const notes = await search(alice, { q: 'marquet keys' });
    expect(notes.body.hits).toEqual([
      expect.objectContaining({ transcript_id: heist, kind: 'notes', link: `/sessions/${heist}/notes` }),
    ]);
    // Web-search syntax: a quoted phrase, and a word excluded with a minus.
    const phrase = await search(alice, { q: '"thieves tools"' });
    expect(phrase.body.hits.map((h) => h.link)).toEqual([`/sessions/${heist}#line=1`]);
    const without = await search(alice, { q: 'wyvern -fireball' });
    expect(without.body.hits.map((h) => h.seconds)).toEqual([3723]);
  });

  it("finds a summary once, even when it is also the model's original, with a snippet of plain words", async () => {
    const id = (
      await api<TranscriptListItem>('POST', '/transcripts/manual', alice, {
        name: 'Mind flayers',
        session_date: '2026-03-01',
        summary:
          '<!-- chronicler:offline -->\n## Key moments\n\n- The **Clarota** fled [[01:20:42]](/sessions/abc#t=01:20:42) - gone.',
        transcript: '[01:20:42] MATT: It runs.',
      })
    ).body.id;
    // What a generated summary stores: the text shown and the model's original, the same words.
    await system.platform!.db.query(`update transcript.transcripts set llm_summary = summary where id = $1`, [
      id,
    ]);
    const res = await search(alice, { q: 'Clarota' });
    expect(res.body.hits.map((h) => [h.transcript_id, h.kind])).toEqual([[id, 'summary']]);
    const snippet = text(res.body.hits[0]!);
    expect(snippet).toContain('The Clarota fled [01:20:42] - gone');
    expect(snippet).not.toMatch(/\*\*|#t=|\/sessions\/|<!--|##/);
    expect(marked(res.body.hits[0]!)).toEqual(['clarota']);
  });

  it('says why a query of only common words finds nothing, and what to try', async () => {
    for (const q of ['the', 'and of the']) {
      const res = await search(alice, { q });
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatch(/only common words .* Search for a name, a place or a rarer word/);
    }
  });

  it("never shows another user's sessions, and narrows to one of the user's groups", async () => {
    const bobs = await search(bob, { q: 'vault' });
    expect(bobs.body.hits.map((h) => h.transcript_name)).toEqual(['Bob wyvern']);
    const all = await search(alice, { q: 'vault' });
    expect(new Set(all.body.hits.map((h) => h.transcript_id))).toEqual(new Set([heist]));
    const inGroup = await search(alice, { q: 'wyvern', group: heistGroup });
    expect(inGroup.body.hits).toEqual([]);
    expect((await search(bob, { q: 'vault', group: heistGroup })).status).toBe(404);
    expect((await search(alice, { q: 'vault', group: 'not-a-group' })).status).toBe(404);
  });

  it('pages with `after` without skipping or repeating a hit', async () => {
    const whole = await search(alice, { q: 'wyvern OR vault OR dragon' });
    expect(whole.body.hits.length).toBeGreaterThanOrEqual(5);
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof search>> = await search(alice, {
        q: 'wyvern OR vault OR dragon',
        limit: '2',
        ...(after ? { after } : {}),
      });
      expect(page.status).toBe(200);
      expect(page.body.hits.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.hits.map((h) => `${h.transcript_id}:${h.kind}:${h.line}:${text(h)}`));
      after = page.body.next;
    } while (after);
    expect(seen).toEqual(whole.body.hits.map((h) => `${h.transcript_id}:${h.kind}:${h.line}:${text(h)}`));
  });

  it('follows edits: a changed line is found by its new words, not its old ones', async () => {
    await api('PUT', `/transcripts/${heist}`, alice, {
      name: 'Vault job',
      transcript: 'MATT: The portcullis is sealed.',
    });
    expect((await search(alice, { q: 'portcullis' })).body.hits).toHaveLength(1);
    expect((await search(alice, { q: 'thieves' })).body.hits).toEqual([]);
    await api('DELETE', `/transcripts/${heist}`, alice);
    expect((await search(alice, { q: 'portcullis' })).body.hits).toEqual([]);
  });

  it("finds a live session's line as soon as it is stored, before the session ends", async () => {
    const aliceId = (await localSignIn(system.url, 'alice')).body.user?.id ?? '';
    // What the live consumer writes: an active live session and one of its finals.
    const [row] = await system.platform!.db.query<{ id: string }>(
      `insert into transcript.transcripts (owner_id, name, status, source) values ($1, 'Live night', 'active', 'live')
       returning id`,
      [aliceId],
    );
    const live = row!.id;
    await system.platform!.db.query(
      `insert into transcript.transcript_lines
              (transcript_id, seq, utterance_id, speaker_tag, speaker_name, text, start_seconds, end_seconds)
       values ($1, 1, 'u1', '"2"', 'TRAVIS', 'I rage at the owlbear.', 125.4, 127)`,
      [live],
    );
    const found = await search(alice, { q: 'owlbear' });
    expect(found.body.hits).toEqual([
      expect.objectContaining({
        transcript_id: live,
        kind: 'line',
        seconds: 125,
        link: `/sessions/${live}#t=00:02:05`,
      }),
    ]);
    expect(text(found.body.hits[0]!)).toContain('TRAVIS: I rage at the owlbear');
  });

  it('refuses a missing, blank or over-long query, a bad limit and a bad cursor with a 400', async () => {
    for (const query of <Record<string, string>[]>[
      {},
      { q: '   ' },
      { q: 'x'.repeat(201) },
      { q: 'wyvern', limit: '0' },
      { q: 'wyvern', limit: '101' },
      { q: 'wyvern', after: 'nonsense' },
    ]) {
      const res = await search(alice, query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.detail).toBeTruthy();
    }
    expect((await search('', { q: 'wyvern' })).status).toBe(401);
  });
});

describe(`the routes of search, sharing and kept audio in /api/openapi.json (${testMode} mode)`, () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await startSystem({});
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  it('documents each with its methods', async () => {
    const doc = (await (await fetch(`${system.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const methods = (path: string) => Object.keys(doc.paths[path] ?? {}).sort();
    expect(methods('/api/search')).toEqual(['get']);
    expect(methods('/api/transcripts/{id}/shares')).toEqual(['get', 'post']);
    expect(methods('/api/groups/{id}/shares')).toEqual(['get', 'post']);
    expect(methods('/api/transcripts/{id}/shares/{shareId}')).toEqual(['delete']);
    expect(methods('/api/groups/{id}/shares/{shareId}')).toEqual(['delete']);
    expect(methods('/api/shared/{token}')).toEqual(['get']);
    expect(methods('/api/shared/{token}/sessions/{sessionId}')).toEqual(['get']);
    expect(methods('/api/transcripts/{id}/audio')).toEqual(['get']);
    expect(methods('/api/transcripts/{id}/audio/tracks')).toEqual(['get']);
  });
});
