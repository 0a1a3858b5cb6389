// What the offline fallback gives a user on real sessions (CRD3: Critical Role episodes,
// Rameshkumar and Bailey 2020, CC BY-SA 4.0; see ../shared/data/crd3): automatic digests of a
// bulk import all made whatever the AI rate limit, a long session's digest quoting every hour,
// and chat quoting the line that answers. `pnpm eval` measures the answers at scale.
import {
  getGroupCharactersRpc,
  putGroupCharactersRpc,
  type Group,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { crd3Transcript } from '../support/crd3.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

const RATE_LIMIT = 5;

describe(`AI quality on real sessions (${testMode} mode, offline engine)`, () => {
  let system: TestSystem;
  let user: { token: string; id: string };

  beforeAll(async () => {
    system = await startSystem({
      env: { AUTH_LOCAL_ENABLED: 'true', AI_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) },
    });
    const r = await localSignIn(system.url, `quality-${Date.now()}`);
    user = { token: r.cookie, id: r.body.user?.id ?? '' };
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  const api = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
    apiCall<T>(system.url, method, path, user.token, body);
  const create = async (name: string, transcript: string, extra: Record<string, unknown> = {}) => {
    const res = await api<TranscriptListItem>('POST', '/transcripts/manual', {
      name,
      session_date: '2018-01-25T00:00:00.000Z',
      transcript,
      ...extra,
    });
    expect(res.status).toBe(200);
    return res.body;
  };
  const statuses = async (ids: string[]) =>
    system.platform!.db.query<{ id: string; summary_status: string; summary: string }>(
      'select id, summary_status, summary from transcript.transcripts where id = any($1::uuid[])',
      [ids],
    );

  it('summarises every session of a bulk import although it is far over the per-user AI limit', async () => {
    const ids: string[] = [];
    for (let i = 0; i < RATE_LIMIT * 4; i++) {
      const s = await create(`Import ${i}`, crd3Transcript('C1E001', { timed: true, turns: 60 + i }));
      ids.push(s.id);
    }
    await waitFor(async () => (await statuses(ids)).every((r) => r.summary_status === 'done'), 90_000);
    const rows = await statuses(ids);
    expect(rows.filter((r) => r.summary_status === 'failed')).toEqual([]);
    for (const r of rows) expect(r.summary).toMatch(/^<!-- chronicler:offline -->\n### Key moments\n/);
    // The user's own requests still have their whole allowance.
    const asked = await api<{ response: string }>('POST', '/chat', {
      transcript_id: ids[0],
      messages: [{ role: 'user', content: 'Who healed Grog?' }],
    });
    expect(asked.status).toBe(200);
  }, 120_000);

  it('digests a 4-hour session: quoted key moments over every hour with links to them, people, places, open questions', async () => {
    const transcript = crd3Transcript('C2E003', { timed: true, secondsPerTurn: 6 });
    const s = await create('C2E003', transcript, { summary: 'by hand' });
    const res = await api<{ summary: string }>('POST', `/transcripts/${s.id}/generate-summary`);
    expect(res.status).toBe(200);
    const summary = res.body.summary;
    expect(summary.length).toBeLessThanOrEqual(10_000);
    expect(summary.match(/^### .+$/gm)).toEqual([
      '### Key moments',
      '### People',
      '### Places',
      '### Open questions',
    ]);
    const moments = summary.split('### People')[0]!;
    const link = new RegExp(`\\[\\[(\\d\\d):\\d\\d:\\d\\d\\]\\]\\(/sessions/${s.id}#t=`, 'g');
    const hours = new Set([...moments.matchAll(link)].map((m) => Number(m[1])));
    expect([...hours].sort()).toEqual([0, 1, 2, 3, 4]);
  }, 60_000);

  it('answers with the line that holds the answer, and uses the group’s who-is-who map', async () => {
    const g = await api<Group>('POST', '/groups', { name: 'Mighty Nein' });
    const transcript = crd3Transcript('C2E003', { timed: true, secondsPerTurn: 5 });
    const s = await create('The acid', transcript, { summary: 'by hand', group_id: g.body.id });
    const links = [{ speaker: 'SAM', character: 'Nott' }];
    await call(system.platform!.bus, putGroupCharactersRpc, { owner_id: user.id, id: g.body.id, links });
    expect(
      (
        await call(system.platform!.bus, getGroupCharactersRpc, {
          owner_id: user.id,
          id: g.body.id,
          infer: false,
        })
      ).links,
    ).toEqual(links);
    await waitFor(async () => {
      const res = await api<{ response: string }>('POST', '/chat', {
        transcript_id: s.id,
        messages: [{ role: 'user', content: 'What did the acid do?' }],
      });
      if (res.status === 429) return false;
      expect(res.status).toBe(200);
      // Turn 1333 (0-based) at 5 s a turn: 01:51:05, the game master's line where it melts,
      // quoted with a link to its moment.
      expect(res.body.response).toContain(`> [01:51:05](/sessions/${s.id}#t=01:51:05) MATT: `);
      return true;
    }, 90_000);
  }, 120_000);
});
