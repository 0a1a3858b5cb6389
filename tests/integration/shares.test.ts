import type { CreatedShare, Share, SharedTranscript, SharedView } from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

describe(`read-only share links (${testMode} mode)`, () => {
  let system: TestSystem;
  let alice: string;
  let bob: string;
  let session = '';
  let other = '';
  let group = '';

  const api = <T = Record<string, unknown>>(method: string, path: string, token?: string, body?: unknown) =>
    apiCall<T>(system.url, method, path, token, body);
  const token = (share: CreatedShare) => share.path.replace('/shared/', '');

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false' } });
    alice = (await localSignIn(system.url, 'alice')).cookie;
    bob = (await localSignIn(system.url, 'bob')).cookie;
    group = (await api<{ id: string }>('POST', '/groups', alice, { name: 'Shared Campaign' })).body.id;
    await api('PUT', `/groups/${group}`, alice, { summary: 'The story so far.' });
    const create = async (name: string, groupId?: string) =>
      (
        await api<{ id: string }>('POST', '/transcripts/manual', alice, {
          name,
          session_date: '2026-04-01',
          summary: `${name} summary`,
          transcript: `[00:00:01] MATT: ${name} begins.`,
          ...(groupId ? { group_id: groupId } : {}),
        })
      ).body.id;
    session = await create('Session one', group);
    other = await create('Elsewhere');
    await api('PUT', `/transcripts/${session}/notes`, alice, { content: 'SECRET: the duke is the villain' });
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  it("a session's link shows its transcript and summary to anyone, never the notes, until revoked", async () => {
    const created = await api<CreatedShare>('POST', `/transcripts/${session}/shares`, alice, {});
    expect(created.status).toBe(201);
    const share = created.body;
    // 32 random bytes: at least 128 bits, and not an id.
    expect(token(share)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(token(share)).not.toContain(session);
    expect(share).toMatchObject({ kind: 'transcript', target_id: session, expires_at: null });
    const stored = await system.platform!.db.query<{ hex: string }>(
      `select encode(token_hash, 'hex') as hex from transcript.shares where id = $1`,
      [share.id],
    );
    expect(stored[0]?.hex).toHaveLength(64);
    expect(stored[0]?.hex).not.toContain(Buffer.from(token(share)).toString('hex'));

    const view = await api<SharedView>('GET', `/shared/${token(share)}`);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({
      kind: 'transcript',
      transcript: {
        name: 'Session one',
        summary: 'Session one summary',
        content: '[00:00:01] MATT: Session one begins.',
      },
    });
    expect(JSON.stringify(view.body)).not.toContain('SECRET');
    expect(JSON.stringify(view.body)).not.toMatch(/owner/);

    const listed = await api<Share[]>('GET', `/transcripts/${session}/shares`, alice);
    expect(listed.body).toEqual([
      {
        id: share.id,
        kind: 'transcript',
        target_id: session,
        created_at: share.created_at,
        expires_at: null,
      },
    ]);
    expect((await api('DELETE', `/transcripts/${session}/shares/${share.id}`, alice)).status).toBe(200);
    expect((await api('GET', `/shared/${token(share)}`)).status).toBe(404);
    expect((await api<Share[]>('GET', `/transcripts/${session}/shares`, alice)).body).toEqual([]);
    expect((await api('DELETE', `/transcripts/${session}/shares/${share.id}`, alice)).status).toBe(404);
  });

  it("every moment and session link inside a shared summary opens inside the shared view, none the owner's pages", async () => {
    const extra = (
      await api<{ id: string }>('POST', '/transcripts/manual', alice, {
        name: 'Linked',
        session_date: '2026-04-02',
        group_id: group,
        transcript: '[00:00:01] MATT: Linked begins.\n[00:00:09] SAM: A moment.',
      })
    ).body.id;
    const summary = `- "A moment." (Sam) [[00:00:09]](/sessions/${extra}#t=00:00:09)\n- Before: [Elsewhere](/sessions/${other}) and [Session one](/sessions/${session}#t=00:00:01)`;
    expect((await api('PUT', `/transcripts/${extra}/summary`, alice, { summary })).status).toBe(200);

    // A session's own link: its moments on the link's page; another session's link, its words only.
    const own = token((await api<CreatedShare>('POST', `/transcripts/${extra}/shares`, alice, {})).body);
    const view = (await api<SharedView & { kind: 'transcript' }>('GET', `/shared/${own}`)).body;
    expect(view.transcript.summary).toBe(
      `- "A moment." (Sam) [[00:00:09]](/shared/${own}#t=00:00:09)\n- Before: Elsewhere and Session one`,
    );

    // A campaign's link: its sessions' moments on their shared pages; a session outside it, words only.
    const campShare = (await api<CreatedShare>('POST', `/groups/${group}/shares`, alice, {})).body;
    const camp = token(campShare);
    const campaign = (await api<SharedView & { kind: 'group' }>('GET', `/shared/${camp}`)).body;
    const listed = campaign.sessions.find((s) => s.id === extra)!;
    const page = await api<SharedTranscript>('GET', `/shared/${camp}/sessions/${extra}`);
    for (const text of [listed.summary, page.body.summary]) {
      expect(text).toBe(
        `- "A moment." (Sam) [[00:00:09]](/shared/${camp}/sessions/${extra}#t=00:00:09)\n- Before: Elsewhere and [Session one](/shared/${camp}/sessions/${session}#t=00:00:01)`,
      );
    }
    expect(JSON.stringify(campaign)).not.toContain('](/sessions/');
    await api('DELETE', `/groups/${group}/shares/${campShare.id}`, alice);
    await api('DELETE', `/transcripts/${extra}`, alice);
  });

  it('reads of a link have their own limit, apart from sign-in: wrong tokens from the same address never stop a working link', async () => {
    const working = token(
      (await api<CreatedShare>('POST', `/transcripts/${session}/shares`, alice, {})).body,
    );
    // More wrong tokens than sign-in allows from one address (RATE_LIMIT_SIGN_IN_MAX, 30 here).
    for (let i = 0; i < 40; i++)
      expect((await api('GET', `/shared/${'W'.repeat(42)}${i % 10}`)).status).toBe(404);
    expect((await api('GET', `/shared/${working}`)).status).toBe(200);
  });

  it("another user's session or group, and another user's link, answer 404; nothing changes", async () => {
    const mine = (await api<CreatedShare>('POST', `/transcripts/${session}/shares`, alice, {})).body;
    expect((await api('POST', `/transcripts/${session}/shares`, bob, {})).status).toBe(404);
    expect((await api('GET', `/transcripts/${session}/shares`, bob)).status).toBe(404);
    expect((await api('DELETE', `/transcripts/${session}/shares/${mine.id}`, bob)).status).toBe(404);
    expect((await api('POST', `/groups/${group}/shares`, bob, {})).status).toBe(404);
    expect((await api('GET', `/groups/${group}/shares`, bob)).status).toBe(404);
    expect((await api('DELETE', `/groups/${group}/shares/${mine.id}`, bob)).status).toBe(404);
    // A session's link id is not a group's link.
    expect((await api('DELETE', `/groups/${group}/shares/${mine.id}`, alice)).status).toBe(404);
    expect((await api('POST', `/transcripts/not-an-id/shares`, alice, {})).status).toBe(404);
    expect((await api('GET', `/shared/${token(mine)}`)).status).toBe(200);
    expect((await api('GET', `/shared/${'A'.repeat(43)}`)).status).toBe(404);
    expect((await api('GET', `/shared/${mine.id}`)).status).toBe(404);
    expect((await api('POST', `/transcripts/${session}/shares`, undefined, {})).status).toBe(401);
  });

  it('never grants write access: the token opens GET routes only, and is no sign-in', async () => {
    const share = (await api<CreatedShare>('POST', `/transcripts/${session}/shares`, alice, {})).body;
    expect((await api('PUT', `/shared/${token(share)}`, undefined, { name: 'x' })).status).toBe(404);
    expect((await api('DELETE', `/shared/${token(share)}`)).status).toBe(404);
    expect(
      (await api('PUT', `/transcripts/${session}/rename`, token(share), { name: 'Hijacked' })).status,
    ).toBe(401);
    expect((await api('GET', `/transcripts/${session}/notes`, token(share))).status).toBe(401);
  });

  it('an expiry in the past is refused; an expired link answers 404', async () => {
    const past = await api<{ detail: string }>('POST', `/transcripts/${session}/shares`, alice, {
      expires_at: '2020-01-01T00:00:00Z',
    });
    expect(past.status).toBe(400);
    expect(past.body.detail).toBe('expires_at must be in the future');
    expect((await api('POST', `/transcripts/${session}/shares`, alice, { expires_at: 'soon' })).status).toBe(
      400,
    );
    const soon = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    const share = (
      await api<CreatedShare>('POST', `/transcripts/${session}/shares`, alice, { expires_at: soon })
    ).body;
    expect(share.expires_at).toBe(soon);
    expect((await api('GET', `/shared/${token(share)}`)).status).toBe(200);
    // Time passes: the stored expiry is moved into the past, as an hour from now would be.
    await system.platform!.db.query(
      `update transcript.shares set expires_at = now() - interval '1 second' where id = $1`,
      [share.id],
    );
    expect((await api('GET', `/shared/${token(share)}`)).status).toBe(404);
    expect(
      (await api<Share[]>('GET', `/transcripts/${session}/shares`, alice)).body.map((s) => s.id),
    ).not.toContain(share.id);
  });

  it("a campaign's link lists its sessions and opens each, but no session outside it", async () => {
    const created = await api<CreatedShare>('POST', `/groups/${group}/shares`, alice, {});
    expect(created.status).toBe(201);
    const t = token(created.body);
    const view = await api<SharedView>('GET', `/shared/${t}`);
    expect(view.body).toMatchObject({
      kind: 'group',
      group: { name: 'Shared Campaign', summary: 'The story so far.' },
      sessions: [{ id: session, name: 'Session one', summary: 'Session one summary' }],
    });
    const one = await api<SharedTranscript>('GET', `/shared/${t}/sessions/${session}`);
    expect(one.body.content).toBe('[00:00:01] MATT: Session one begins.');
    expect(JSON.stringify(one.body)).not.toContain('SECRET');
    expect((await api('GET', `/shared/${t}/sessions/${other}`)).status).toBe(404);
    expect((await api<Share[]>('GET', `/groups/${group}/shares`, alice)).body.map((s) => s.id)).toEqual([
      created.body.id,
    ]);
    // Deleting the session or the group ends their links.
    const sessionShare = (await api<CreatedShare>('POST', `/transcripts/${other}/shares`, alice, {})).body;
    await api('DELETE', `/transcripts/${other}`, alice);
    expect((await api('GET', `/shared/${token(sessionShare)}`)).status).toBe(404);
    await api('DELETE', `/groups/${group}`, alice);
    await expect.poll(async () => (await api('GET', `/shared/${t}`)).status, { timeout: 20_000 }).toBe(404);
  });
});
