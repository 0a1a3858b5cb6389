import {
  GROUP_NAME_MAX,
  LIST_PAGE_DEFAULT,
  LIST_PAGE_MAX,
  PLANNING_HISTORY_LIMIT,
  type Group,
  type PlanningServerFrame,
  type Transcript,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

// Issue 10, defect 3: data within the product's limits must never make a list or a socket
// unusable (each bus message is capped at 1 MiB), and lists that grow without bound are paged.
describe(`lists and payloads of any size (${testMode} mode)`, () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false' } });
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  const user = async (name: string) => {
    const s = await localSignIn(system.url, name);
    return { token: s.cookie, id: s.body.user?.id ?? '' };
  };

  const request = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${system.url}/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      link: res.headers.get('link'),
      body: (text ? JSON.parse(text) : undefined) as unknown,
    };
  };

  /** Every page of a list, following `Link: rel="next"`; the pages and the items. */
  const allPages = async <T>(path: string, token: string) => {
    const pages: { status: number; count: number; link: string | null }[] = [];
    const items: T[] = [];
    let next: string | null = `${system.url}/api${path}`;
    while (next) {
      const res: Response = await fetch(next, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as T[];
      const link = res.headers.get('link');
      pages.push({ status: res.status, count: body.length, link });
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(200);
      items.push(...body);
      const m = link ? /^<([^>]+)>;\s*rel="next"$/.exec(link) : null;
      if (link) expect(m, link).not.toBeNull();
      next = m ? new URL(m[1]!, next).href : null;
    }
    return { pages, items };
  };

  it('GET /api/groups answers 200 with all of 42 groups whose 10,000-character summaries exceed one bus message', async () => {
    const carol = await user('carol-groups');
    const summary = '€'.repeat(10_000); // 30 KB of UTF-8 each, 1.26 MB in all
    const ids: string[] = [];
    for (let i = 0; i < 42; i++) {
      const g = await request('POST', '/groups', carol.token, { name: `Campaign ${i}` });
      expect(g.status).toBe(200);
      const id = (g.body as Group).id;
      expect((await request('PUT', `/groups/${id}`, carol.token, { summary })).status).toBe(200);
      ids.push(id);
    }
    const whole = await request('GET', '/groups', carol.token);
    expect(whole.status).toBe(200);
    expect((whole.body as Group[]).map((g) => g.id)).toEqual(ids);
    expect((whole.body as Group[]).every((g) => g.summary === summary)).toBe(true);
    expect(whole.link).toBeNull();

    const paged = await allPages<Group>('/groups?limit=10', carol.token);
    expect(paged.pages.map((p) => p.count)).toEqual([10, 10, 10, 10, 2]);
    expect(paged.items.map((g) => g.id)).toEqual(ids);
  });

  it('two groups with the longest allowed names are created, renamed and listed', async () => {
    const dave = await user('dave-groups');
    const names = ['€'.repeat(GROUP_NAME_MAX), '🐉'.repeat(GROUP_NAME_MAX / 2)];
    for (const name of names) {
      const created = await request('POST', '/groups', dave.token, { name });
      expect(created.status).toBe(200);
      const id = (created.body as Group).id;
      expect((await request('PUT', `/groups/${id}`, dave.token, { name })).status).toBe(200);
    }
    const list = await request('GET', '/groups', dave.token);
    expect(list.status).toBe(200);
    expect((list.body as Group[]).map((g) => g.name)).toEqual(names);
  });

  it('the planning socket still connects and sends the most recent history after 40 long messages', async () => {
    const erin = await user('erin-planning');
    const group = (await request('POST', '/groups', erin.token, { name: 'Long talks' })).body as Group;
    // 40 messages of 10,000 three-byte characters (1.2 MB), written where the service keeps them.
    await system.platform!.db.query(
      `insert into planning.messages (owner_id, group_id, role, content, created_at)
       select $1, $2, case when g % 2 = 0 then 'assistant' else 'user' end,
              g || ':' || repeat('€', 10000), now()
         from generate_series(1, 40) g`,
      [erin.id, group.id],
    );
    for (let attempt = 0; attempt < 2; attempt++) {
      const frame = await firstPlanningFrame(erin.token, group.id);
      expect(frame.type).toBe('chat_history');
      const messages = frame.type === 'chat_history' ? frame.messages : [];
      expect(messages).toHaveLength(40);
      expect(messages[0]!.content.startsWith('1:')).toBe(true);
      expect(messages[39]!.content).toBe(`40:${'€'.repeat(10_000)}`);
    }
  });

  it(`the planning history is capped to the most recent ${PLANNING_HISTORY_LIMIT} messages, and storage keeps all`, async () => {
    const fay = await user('fay-planning');
    const group = (await request('POST', '/groups', fay.token, { name: 'Chatty' })).body as Group;
    const total = PLANNING_HISTORY_LIMIT + 30;
    await system.platform!.db.query(
      `insert into planning.messages (owner_id, group_id, role, content, created_at)
       select $1, $2, 'user', 'm' || g, now() from generate_series(1, ${total}) g`,
      [fay.id, group.id],
    );
    const frame = await firstPlanningFrame(fay.token, group.id);
    const messages = frame.type === 'chat_history' ? frame.messages : [];
    expect(messages.map((m) => m.content)).toEqual(
      Array.from({ length: PLANNING_HISTORY_LIMIT }, (_, i) => `m${total - PLANNING_HISTORY_LIMIT + i + 1}`),
    );
    const [row] = await system.platform!.db.query<{ n: number }>(
      'select count(*)::int as n from planning.messages where group_id = $1',
      [group.id],
    );
    expect(row?.n).toBe(total);
  });

  describe('GET /api/transcripts pages', () => {
    let gus: { token: string; id: string };
    let expected: string[];

    beforeAll(async () => {
      gus = await user('gus-sessions');
      // 250 sessions, three at a time sharing a timestamp (with microseconds), which keyset
      // paging must neither skip nor repeat.
      await system.platform!.db.query(
        `insert into transcript.transcripts (owner_id, name, session_timestamp, summary, source)
         select $1, 'Session ' || g,
                timestamptz '2021-01-01' + (g / 3) * interval '1 hour' + interval '0.000321 second',
                'summary ' || g, 'manual'
           from generate_series(1, 250) g`,
        [gus.id],
      );
      expected = (
        await system.platform!.db.query<{ id: string }>(
          `select id::text as id from transcript.transcripts where owner_id = $1
            order by session_timestamp desc, created_at desc, id desc`,
          [gus.id],
        )
      ).map((r) => r.id);
    });

    it('follows Link rel="next" through every session once, in order, until the last page has none', async () => {
      const { pages, items } = await allPages<TranscriptListItem>('/transcripts?limit=100', gus.token);
      expect(pages.map((p) => p.count)).toEqual([100, 100, 50]);
      expect(pages.map((p) => p.link !== null)).toEqual([true, true, false]);
      expect(items.map((t) => t.id)).toEqual(expected);
      expect(new Set(items.map((t) => t.id)).size).toBe(250);
    });

    it(`answers ${LIST_PAGE_DEFAULT} sessions without a limit, and pages of 7 as asked`, async () => {
      const first = await request('GET', '/transcripts', gus.token);
      expect((first.body as TranscriptListItem[]).map((t) => t.id)).toEqual(
        expected.slice(0, LIST_PAGE_DEFAULT),
      );
      expect(first.link).toMatch(
        new RegExp(`^</api/transcripts\\?limit=${LIST_PAGE_DEFAULT}&after=[^>]+>; rel="next"$`),
      );
      const { pages, items } = await allPages<TranscriptListItem>('/transcripts?limit=7', gus.token);
      expect(pages).toHaveLength(Math.ceil(250 / 7));
      expect(items.map((t) => t.id)).toEqual(expected);
    });

    it('ends with a full page that has no next link when the count is a multiple of the limit', async () => {
      const { pages, items } = await allPages<TranscriptListItem>('/transcripts?limit=50', gus.token);
      expect(pages.map((p) => p.count)).toEqual([50, 50, 50, 50, 50]);
      expect(pages.map((p) => p.link !== null)).toEqual([true, true, true, true, false]);
      expect(items.map((t) => t.id)).toEqual(expected);
    });

    it('compresses a page for a client that accepts gzip, and sends it as is otherwise', async () => {
      const headers = { authorization: `Bearer ${gus.token}` };
      const gzip = await fetch(`${system.url}/api/transcripts`, {
        headers: { ...headers, 'accept-encoding': 'gzip' },
      });
      expect(gzip.headers.get('content-encoding')).toBe('gzip');
      expect(gzip.headers.get('vary')).toMatch(/accept-encoding/i);
      // fetch decodes it: the same list.
      expect(((await gzip.json()) as TranscriptListItem[]).map((t) => t.id)).toEqual(
        expected.slice(0, LIST_PAGE_DEFAULT),
      );
      const plain = await fetch(`${system.url}/api/transcripts`, {
        headers: { ...headers, 'accept-encoding': 'identity' },
      });
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(((await plain.json()) as TranscriptListItem[]).length).toBe(LIST_PAGE_DEFAULT);
    });

    it('refuses a limit over the maximum, a limit that is not a positive integer, and a forged cursor, with {detail}', async () => {
      for (const q of [`limit=${LIST_PAGE_MAX + 1}`, 'limit=0', 'limit=-3', 'limit=ten', 'limit=1.5']) {
        const res = await request('GET', `/transcripts?${q}`, gus.token);
        expect(res.status, q).toBe(400);
        expect(res.body).toEqual({ detail: `limit must be an integer from 1 to ${LIST_PAGE_MAX}` });
      }
      expect(await request('GET', '/transcripts?after=bm90LWEtY3Vyc29y', gus.token)).toMatchObject({
        status: 400,
        body: { detail: 'Invalid list cursor' },
      });
      expect(await request('GET', '/groups?after=bm90LWEtY3Vyc29y', gus.token)).toMatchObject({
        status: 400,
        body: { detail: 'Invalid list cursor' },
      });
      expect((await request('GET', `/transcripts?limit=${LIST_PAGE_MAX}`, gus.token)).status).toBe(200);
    });
  });

  it('a transcript of 500,000 three-byte characters (1.5 MB) round-trips through create, get, chat and summary', async () => {
    const hal = await user('hal-large');
    const transcript = `[00:00:01] MATT: ${'€'.repeat(500_000 - 20)}`.padEnd(500_000, '€');
    expect(transcript.length).toBe(500_000);
    const created = await request('POST', '/transcripts/manual', hal.token, {
      name: 'The longest night',
      session_date: '2022-02-02T00:00:00.000Z',
      transcript,
    });
    expect(created.status).toBe(200);
    const id = (created.body as TranscriptListItem).id;
    const got = await request('GET', `/transcripts/${id}`, hal.token);
    expect(got.status).toBe(200);
    expect((got.body as Transcript).content).toBe(transcript);

    const updated = `${transcript.slice(0, 499_998)}🐉`;
    expect(
      (await request('PUT', `/transcripts/${id}`, hal.token, { name: 'Longer', transcript: updated })).status,
    ).toBe(200);
    expect(((await request('GET', `/transcripts/${id}`, hal.token)).body as Transcript).content).toBe(
      updated,
    );

    const chat = await request('POST', '/chat', hal.token, {
      transcript_id: id,
      messages: [{ role: 'user', content: 'What happens?' }],
    });
    expect(chat.status).toBe(200);
    expect(typeof (chat.body as { response: string }).response).toBe('string');

    const summary = await request('POST', `/transcripts/${id}/generate-summary`, hal.token);
    expect(summary.status).toBe(200);
  });

  /** The first frame the planning socket sends after the handshake. */
  function firstPlanningFrame(token: string, groupId: string): Promise<PlanningServerFrame> {
    return new Promise((resolve, reject) => {
      const url = `${system.url.replace(/^http/, 'ws')}/api/ws/planning?${new URLSearchParams({ group_id: groupId })}`;
      const socket = new WebSocket(url, {
        origin: system.url,
        headers: { authorization: `Bearer ${token}` },
      });
      socket.once('message', (data) => {
        resolve(JSON.parse(String(data)) as PlanningServerFrame);
        socket.close(1000);
      });
      socket.once('unexpected-response', (_req, res) => {
        reject(new Error(`handshake answered ${res.statusCode}`));
        socket.terminate();
      });
      socket.once('error', reject);
    });
  }
});
