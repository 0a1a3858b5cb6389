import type { TranscriptListItem } from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

// GET /api/transcripts?q=&group_id=&ungrouped=: the browser pages through a search or one
// group's sessions instead of loading the whole library to filter it.
describe(`GET /api/transcripts filters (${testMode} mode)`, () => {
  let system: TestSystem;
  let carol: { token: string; id: string };
  let dave: { token: string; id: string };
  let groupId = '';

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false' } });
    const c = await localSignIn(system.url, 'carol');
    const d = await localSignIn(system.url, 'dave');
    carol = { token: c.cookie, id: c.body.user?.id ?? '' };
    dave = { token: d.cookie, id: d.body.user?.id ?? '' };
    const db = system.platform!.db;
    const [group] = await db.query<{ id: string }>(
      `insert into "group".groups (owner_id, name) values ($1, 'Mighty Nein') returning id`,
      [carol.id],
    );
    groupId = group!.id;
    await db.query(
      `insert into transcript.transcripts (owner_id, group_id, name, session_timestamp, content, preview, source)
       values ($1, null, 'Curious Beginnings', '2018-01-11T02:00:00Z', '', 'MATT: the Zadash road...', 'manual'),
              ($1, $2, 'A Show Begins', '2018-01-18T02:00:00Z', '', '', 'manual'),
              ($1, $2, 'Disparate Pieces', '2018-01-25T02:00:00Z', '', '', 'manual'),
              ($1, null, '100% Fun_Night', '2018-02-01T02:00:00Z', '', '', 'manual'),
              ($1, null, '100 Fun Night', '2018-02-08T02:00:00Z', '', '', 'manual'),
              ($3, null, 'Dave''s Beginnings', '2020-01-01T00:00:00Z', '', '', 'manual')`,
      [carol.id, groupId, dave.id],
    );
  });
  afterAll(async () => {
    await system?.stop();
  });

  const get = async (path: string, token: string) => {
    const res = await fetch(`${system.url}/api${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, link: res.headers.get('link'), body: (await res.json()) as unknown };
  };
  const names = async (path: string, token = carol.token) =>
    ((await get(path, token)).body as TranscriptListItem[]).map((t) => t.name);

  it("searches the owner's names and previews in any case, % and _ matching themselves", async () => {
    expect(await names('/transcripts?q=BEGIN')).toEqual(['A Show Begins', 'Curious Beginnings']);
    expect(await names('/transcripts?q=zadash')).toEqual(['Curious Beginnings']);
    expect(await names('/transcripts?q=100%25%20Fun_')).toEqual(['100% Fun_Night']);
    expect(await names('/transcripts?q=nothing-like-this')).toEqual([]);
    expect(await names('/transcripts?q=beginnings', dave.token)).toEqual(["Dave's Beginnings"]);
  });

  it('narrows to one group or to the ungrouped sessions, and combines with the search', async () => {
    expect(await names(`/transcripts?group_id=${groupId}`)).toEqual(['Disparate Pieces', 'A Show Begins']);
    expect(await names('/transcripts?ungrouped=true')).toEqual([
      '100 Fun Night',
      '100% Fun_Night',
      'Curious Beginnings',
    ]);
    expect(await names('/transcripts?ungrouped=true&q=begin')).toEqual(['Curious Beginnings']);
    // Another user's group holds none of this user's sessions, and lists none of its own.
    expect(await names(`/transcripts?group_id=${groupId}`, dave.token)).toEqual([]);
  });

  it('keeps the filters in the next page link, so paging a search stays in it', async () => {
    const first = await get('/transcripts?ungrouped=true&q=night&limit=1', carol.token);
    expect((first.body as TranscriptListItem[]).map((t) => t.name)).toEqual(['100 Fun Night']);
    const next = /<([^>]*)>;\s*rel="next"/.exec(first.link ?? '')?.[1];
    expect(next).toBeDefined();
    const url = new URL(next!, 'http://x');
    expect(url.searchParams.get('q')).toBe('night');
    expect(url.searchParams.get('ungrouped')).toBe('true');
    const second = await get(`/transcripts${url.search}`, carol.token);
    expect((second.body as TranscriptListItem[]).map((t) => t.name)).toEqual(['100% Fun_Night']);
    expect(second.link).toBeNull();
  });

  it('refuses bad filters with a 400 in plain words', async () => {
    const refused = async (path: string) => {
      const res = await get(path, carol.token);
      return { status: res.status, detail: (res.body as { detail?: string }).detail };
    };
    expect(await refused(`/transcripts?q=${'a'.repeat(201)}`)).toEqual({
      status: 400,
      detail: 'Search text cannot exceed 200 characters',
    });
    expect(await refused('/transcripts?ungrouped=yes')).toEqual({
      status: 400,
      detail: 'ungrouped must be true or false',
    });
    expect(await refused(`/transcripts?ungrouped=true&group_id=${groupId}`)).toEqual({
      status: 400,
      detail: 'group_id and ungrouped cannot be combined',
    });
  });
});
