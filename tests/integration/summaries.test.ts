import {
  claimSummaryRpc,
  summaryMsgId,
  transcriptReadyForSummaryEvent,
  type Group,
  type GroupSummaryCheck,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { crd3Transcript } from '../support/crd3.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

interface User {
  token: string;
  id: string;
}

describe(`session and campaign summaries (${testMode} mode, offline engine)`, () => {
  let system: TestSystem;
  let alice: User;
  let bob: User;
  let admin: User;

  const signIn = async (name: string): Promise<User> => {
    const r = await localSignIn(system.url, name);
    return { token: r.cookie, id: r.body.user?.id ?? '' };
  };

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true' } });
    alice = await signIn('alice');
    bob = await signIn('bob');
    const first = await signIn('gm-admin');
    await system.platform!.db.query('update auth.users set is_admin = true where id = $1', [first.id]);
    // A new sign-in reads the flag (a session's user is cached for a short while).
    admin = await signIn('gm-admin');
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  const api = <T = Record<string, unknown>>(method: string, path: string, token: string, body?: unknown) =>
    apiCall<T>(system.url, method, path, token, body);

  const transcript = crd3Transcript('C1E001', { timed: true, maxChars: 6000 });

  const createSession = async (
    user: User,
    extra: Record<string, unknown> = {},
  ): Promise<TranscriptListItem> => {
    const res = await api<TranscriptListItem>('POST', '/transcripts/manual', user.token, {
      name: 'Arrival at Kraghammer',
      session_date: '2015-03-12T00:00:00.000Z',
      transcript,
      ...extra,
    });
    expect(res.status).toBe(200);
    return res.body;
  };

  const getSession = async (user: User, id: string) =>
    (await api<TranscriptListItem & { content: string }>('GET', `/transcripts/${id}`, user.token)).body;

  const aiRecords = async (userId: string, type: string): Promise<number> => {
    const rows = await system.platform!.db.query<{ n: string | number }>(
      'select count(*) as n from admin_stats.ai_requests where user_id = $1 and request_type = $2',
      [userId, type],
    );
    return Number(rows[0]?.n ?? 0);
  };

  const storedSummary = async (id: string) =>
    (
      await system.platform!.db.query<{ summary: string; llm_summary: string; summary_status: string }>(
        'select summary, llm_summary, summary_status from transcript.transcripts where id = $1',
        [id],
      )
    )[0];

  it('generates a summary of a session on request and stores it with the raw AI text', async () => {
    const s = await createSession(alice, { summary: 'Written by hand.' });
    const res = await api<{ id: string; summary: string }>(
      'POST',
      `/transcripts/${s.id}/generate-summary`,
      alice.token,
    );
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(s.id);
    expect(res.body.summary.trim().length).toBeGreaterThan(20);
    expect(res.body.summary).not.toBe('Written by hand.');
    const row = await storedSummary(s.id);
    expect(row).toMatchObject({ summary: res.body.summary, summary_status: 'done' });
    expect(row!.llm_summary.length).toBeGreaterThan(0);
    expect((await getSession(alice, s.id)).summary).toBe(res.body.summary);
  });

  it("answers 404 for another user's session and changes nothing", async () => {
    const s = await createSession(alice, { summary: 'Mine.' });
    const res = await api<{ detail: string }>('POST', `/transcripts/${s.id}/generate-summary`, bob.token);
    expect(res.status).toBe(404);
    expect((await storedSummary(s.id))!.summary).toBe('Mine.');
    expect((await api('POST', `/transcripts/${randomUUID()}/generate-summary`, alice.token)).status).toBe(
      404,
    );
  });

  it('refuses a session being recorded and one with an empty transcript', async () => {
    const [live] = await system.platform!.db.query<{ id: string }>(
      `insert into transcript.transcripts (owner_id, name, status, source, content)
       values ($1, 'Live now', 'active', 'live', '[00:00:01] Matt: Welcome.') returning id`,
      [alice.id],
    );
    const active = await api<{ detail: string }>(
      'POST',
      `/transcripts/${live!.id}/generate-summary`,
      alice.token,
    );
    expect(active.status).toBe(409);
    expect(active.body.detail).toMatch(/being recorded/);
    expect((await storedSummary(live!.id))!.summary).toBe('');

    const empty = await createSession(alice, { transcript: undefined, summary: 'Only a summary.' });
    const res = await api<{ detail: string }>(
      'POST',
      `/transcripts/${empty.id}/generate-summary`,
      alice.token,
    );
    expect(res).toEqual({
      status: 400,
      body: { detail: 'Cannot generate a summary: the transcript is empty.' },
    });
    expect((await storedSummary(empty.id))!.summary).toBe('Only a summary.');
  });

  it('summarises a session created without a summary automatically, once', async () => {
    const carol = await signIn('carol');
    const s = await createSession(carol);
    expect(s.summary).toBe('');
    await waitFor(async () => (await storedSummary(s.id))!.summary_status === 'done', 30_000);
    const listed = (await api<TranscriptListItem[]>('GET', '/transcripts', carol.token)).body.find(
      (t) => t.id === s.id,
    );
    expect(listed?.summary_status).toBe('done');
    expect(listed?.summary.trim().length).toBeGreaterThan(20);
    await waitFor(async () => (await aiRecords(carol.id, 'session_summary')) === 1, 15_000);

    // The same event again is a duplicate; a copy under another id finds nothing to claim.
    const bus = system.platform!.bus;
    const event = { owner_id: carol.id, transcript_id: s.id };
    const dup = await bus.publishDurable(transcriptReadyForSummaryEvent.subject, event, {
      msgId: summaryMsgId(s.id),
    });
    expect(dup.duplicate).toBe(true);
    await bus.publishDurable(transcriptReadyForSummaryEvent.subject, event, { msgId: `again:${s.id}` });
    expect(await call(bus, claimSummaryRpc, { owner_id: carol.id, id: s.id })).toEqual({ claimed: false });
    // A second session of carol's is summarised after the copy was handled: two records in all.
    const second = await createSession(carol);
    await waitFor(async () => (await storedSummary(second.id))!.summary_status === 'done', 30_000);
    await waitFor(async () => (await aiRecords(carol.id, 'session_summary')) === 2, 15_000);
    expect((await storedSummary(s.id))!.summary).toBe(listed!.summary);
  });

  describe('campaign summaries', () => {
    const groupWithSessions = async (user: User, n: number): Promise<Group> => {
      const g = await api<Group>('POST', '/groups', user.token, {
        name: `Campaign ${randomUUID().slice(0, 6)}`,
      });
      expect(g.status).toBe(200);
      for (let i = 0; i < n; i++) {
        await createSession(user, {
          name: `Episode ${i + 1}`,
          session_date: `2015-03-${10 + i}T00:00:00.000Z`,
          summary: `Episode ${i + 1}: the party explores Kraghammer and meets Lord Kraghammer ${i}.`,
          group_id: g.body.id,
        });
      }
      return g.body;
    };

    it('lets only admins force a campaign summary', async () => {
      const g = await groupWithSessions(alice, 1);
      const res = await api<{ detail: string }>('POST', `/groups/${g.id}/summary`, alice.token);
      expect(res).toEqual({ status: 403, body: { detail: 'Admin access required' } });
      const groups = (await api<Group[]>('GET', '/groups', alice.token)).body;
      expect(groups.find((x) => x.id === g.id)?.summary).toBe('');
    });

    it('stores a forced campaign summary on the group for an admin', async () => {
      const g = await groupWithSessions(admin, 2);
      const res = await api<Group>('POST', `/groups/${g.id}/summary`, admin.token);
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(g.id);
      expect(res.body.summary.trim().length).toBeGreaterThan(20);
      expect(res.body.llm_summary.length).toBeGreaterThan(0);
      expect(res.body.summary_generated_at).not.toBeNull();
      expect(res.body.session_ids).toHaveLength(2);
      const listed = (await api<Group[]>('GET', '/groups', admin.token)).body.find((x) => x.id === g.id);
      expect(listed?.summary).toBe(res.body.summary);
      expect((await api('POST', `/groups/${randomUUID()}/summary`, admin.token)).status).toBe(404);
    });

    it('check-summary generates when sessions have summaries and none was made, then again only after a change', async () => {
      const bobGroup = await groupWithSessions(bob, 2);
      const first = await api<GroupSummaryCheck>('POST', `/groups/${bobGroup.id}/check-summary`, bob.token);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ group_id: bobGroup.id, needs_update: true });
      expect(first.body.summary.trim().length).toBeGreaterThan(20);

      const again = await api<GroupSummaryCheck>('POST', `/groups/${bobGroup.id}/check-summary`, bob.token);
      expect(again.body).toMatchObject({ needs_update: false, summary: first.body.summary });
      expect(await aiRecords(bob.id, 'campaign_summary')).toBeLessThanOrEqual(1);

      const sessions = (await api<TranscriptListItem[]>('GET', '/transcripts', bob.token)).body.filter(
        (t) => t.group_id === bobGroup.id,
      );
      const put = await api('PUT', `/transcripts/${sessions[0]!.id}/summary`, bob.token, {
        summary: 'The party is captured by duergar in the Greyspine mines.',
      });
      expect(put.status).toBe(200);
      const changed = await api<GroupSummaryCheck>('POST', `/groups/${bobGroup.id}/check-summary`, bob.token);
      expect(changed.body.needs_update).toBe(true);
      expect(changed.body.summary).not.toBe(first.body.summary);

      expect((await api('POST', `/groups/${bobGroup.id}/check-summary`, alice.token)).status).toBe(404);
    });

    it('answers the lock messages while a generation runs', async () => {
      const g = await groupWithSessions(admin, 1);
      const lock = await system.platform!.coord.locks.acquire(`summary:group:${g.id}`, 60_000);
      expect(lock).not.toBeNull();
      try {
        const forced = await api<{ detail: string }>('POST', `/groups/${g.id}/summary`, admin.token);
        expect(forced).toEqual({
          status: 409,
          body: { detail: 'Summary generation already in progress for this group.' },
        });
        const check = await api<GroupSummaryCheck>('POST', `/groups/${g.id}/check-summary`, admin.token);
        expect(check.status).toBe(200);
        expect(check.body).toMatchObject({ needs_update: false, summary: '' });
        expect([
          'Summary generation already in progress.',
          'Summary generation already started by another request.',
        ]).toContain(check.body.message);
      } finally {
        await lock!.release();
      }
      const after = await api<GroupSummaryCheck>('POST', `/groups/${g.id}/check-summary`, admin.token);
      expect(after.body.needs_update).toBe(true);
    });

    it('makes exactly one generation of 50 concurrent check-summary requests', async () => {
      const erin = await signIn('erin');
      const g = await groupWithSessions(erin, 3);
      const results = await Promise.all(
        Array.from({ length: 50 }, () =>
          api<GroupSummaryCheck>('POST', `/groups/${g.id}/check-summary`, erin.token),
        ),
      );
      expect(results.every((r) => r.status === 200)).toBe(true);
      const generated = results.filter((r) => r.body.needs_update);
      expect(generated).toHaveLength(1);
      await waitFor(async () => (await aiRecords(erin.id, 'campaign_summary')) >= 1, 15_000);
      expect(await aiRecords(erin.id, 'campaign_summary')).toBe(1);
      const groups = (await api<Group[]>('GET', '/groups', erin.token)).body;
      expect(groups.find((x) => x.id === g.id)?.summary).toBe(generated[0]!.body.summary);
    });

    it('makes one generation per forced request that got the lock of 50 concurrent ones', async () => {
      const dave = await signIn('dave');
      await system.platform!.db.query('update auth.users set is_admin = true where id = $1', [dave.id]);
      const daveAdmin = await signIn('dave');
      const g = await groupWithSessions(daveAdmin, 2);
      const results = await Promise.all(
        Array.from({ length: 50 }, () =>
          api<Group & { detail?: string }>('POST', `/groups/${g.id}/summary`, daveAdmin.token),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status === 409);
      expect(ok.length + refused.length).toBe(50);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      for (const r of refused)
        expect(r.body.detail).toBe('Summary generation already in progress for this group.');
      // A request that arrives after an earlier one finished may generate again, never two at once:
      // the ledger holds one record per generation that was answered 200.
      await waitFor(async () => (await aiRecords(dave.id, 'campaign_summary')) >= ok.length, 15_000);
      expect(await aiRecords(dave.id, 'campaign_summary')).toBe(ok.length);
    });
  });

  it('shows admins the raw AI summary of any session, 404 for an unknown one', async () => {
    const s = await createSession(alice, { summary: 'Hand-written.' });
    const gen = await api<{ summary: string }>('POST', `/transcripts/${s.id}/generate-summary`, alice.token);
    expect(gen.status).toBe(200);
    const res = await api<{ id: string; llm_summary: string }>(
      'GET',
      `/admin/transcripts/${s.id}/llm-summary`,
      admin.token,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: s.id, llm_summary: (await storedSummary(s.id))!.llm_summary });
    expect((await api('GET', `/admin/transcripts/${s.id}/llm-summary`, alice.token)).status).toBe(403);
    expect((await api('GET', `/admin/transcripts/${randomUUID()}/llm-summary`, admin.token)).status).toBe(
      404,
    );
  });
});
