import type { Group, TranscriptListItem } from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

// The create endpoints arrive with the sessions issue; until then rows are seeded straight
// into the services' tables, which is what those endpoints will write.
describe(`GET /api/transcripts and /api/groups (${testMode} mode)`, () => {
  let system: TestSystem;
  let alice: { token: string; id: string };
  let bob: { token: string; id: string };

  beforeAll(async () => {
    // Sessions keep the summaries the test gives them (summaries.test.ts covers automatic ones).
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false' } });
    const a = await localSignIn(system.url, 'alice');
    const b = await localSignIn(system.url, 'bob');
    alice = { token: a.cookie, id: a.body.user?.id ?? '' };
    bob = { token: b.cookie, id: b.body.user?.id ?? '' };
  });
  afterAll(async () => {
    await system?.stop();
  });

  const get = async <T>(path: string, token?: string): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${system.url}/api${path}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { status: res.status, body: (await res.json()) as T };
  };

  it('answers 401 without a signed-in user', async () => {
    expect((await get('/transcripts')).status).toBe(401);
    expect((await get('/groups')).status).toBe(401);
  });

  it('gives a new user empty lists', async () => {
    expect(await get('/transcripts', alice.token)).toEqual({ status: 200, body: [] });
    expect(await get('/groups', alice.token)).toEqual({ status: 200, body: [] });
  });

  it("lists only the owner's sessions, newest first, without content, with '' for ungrouped", async () => {
    const db = system.platform!.db;
    const [group] = await db.query<{ id: string }>(
      `insert into "group".groups (owner_id, name) values ($1, 'Vox Machina') returning id`,
      [alice.id],
    );
    const content = "MATT: Hello everyone, and welcome to tonight's episode of Critical Role. ".repeat(5);
    await db.query(
      `insert into transcript.transcripts (owner_id, group_id, name, session_timestamp, content, preview, source)
       values ($1, null, 'Arrival at Kraghammer', '2015-03-12T02:00:00Z', $2, $3, 'manual'),
              ($1, $4, 'Into the Greyspine Mines', '2015-03-19T02:00:00Z', '', '', 'manual'),
              ($5, null, 'Bob''s one-shot', '2020-01-01T00:00:00Z', '', '', 'manual')`,
      [alice.id, content, `${content.slice(0, 100)}...`, group!.id, bob.id],
    );

    const { status, body } = await get<TranscriptListItem[]>('/transcripts', alice.token);
    expect(status).toBe(200);
    expect(body.map((t) => t.name)).toEqual(['Into the Greyspine Mines', 'Arrival at Kraghammer']);
    expect(body[0]).toMatchObject({
      group_id: group!.id,
      status: 'ended',
      session_timestamp: '2015-03-19T02:00:00.000Z',
    });
    expect(body[1]).toMatchObject({ group_id: '', preview: `${content.slice(0, 100)}...` });
    expect(body[1]).not.toHaveProperty('content');

    const groups = await get<Group[]>('/groups', alice.token);
    expect(groups.body).toEqual([
      {
        id: group!.id,
        group_id: group!.id,
        name: 'Vox Machina',
        session_ids: [body[0]!.id],
        summary: '',
        llm_summary: '',
        summary_generated_at: null,
      },
    ]);

    const bobs = await get<TranscriptListItem[]>('/transcripts', bob.token);
    expect(bobs.body.map((t) => t.name)).toEqual(["Bob's one-shot"]);
    expect((await get<Group[]>('/groups', bob.token)).body).toEqual([]);
  });
});
