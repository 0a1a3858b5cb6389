import type { Group, TranscriptListItem } from '@chronicler/contracts';
import { createLogger } from '@chronicler/kit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShareStore } from '../../services/transcript/src/db/share-store.ts';
import { TranscriptStore } from '../../services/transcript/src/db/store.ts';
import { onGroupDeleted } from '../../services/transcript/src/handlers/group-deleted.ts';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { contentReads, listReads } from '../support/metrics.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

interface Transcript extends Omit<TranscriptListItem, 'preview'> {
  content: string;
}

describe(`sessions and groups API (${testMode} mode)`, () => {
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
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  const api = <T = Record<string, unknown>>(method: string, path: string, token: string, body?: unknown) =>
    apiCall<T>(system.url, method, path, token, body);

  const createSession = async (
    token: string,
    extra: Record<string, unknown> = {},
  ): Promise<TranscriptListItem> => {
    const res = await api<TranscriptListItem>('POST', '/transcripts/manual', token, {
      name: 'Session',
      session_date: '2015-03-12T00:00:00.000Z',
      transcript: 'Some text',
      ...extra,
    });
    expect(res.status).toBe(200);
    return res.body;
  };
  const createGroup = async (token: string, name = 'Vox Machina'): Promise<Group> => {
    const res = await api<Group>('POST', '/groups', token, { name });
    expect(res.status).toBe(200);
    return res.body;
  };
  const list = async (token: string) => (await api<TranscriptListItem[]>('GET', '/transcripts', token)).body;
  const groups = async (token: string) => (await api<Group[]>('GET', '/groups', token)).body;

  it('creates a manual session and reads it back with its content', async () => {
    const content = "MATT: Hello everyone, and welcome to tonight's episode of Critical Role. ".repeat(3);
    const created = await createSession(alice.token, {
      name: '  Arrival at Kraghammer  ',
      session_date: '2015-03-12T05:00:00.000Z',
      summary: 'The party arrives.',
      transcript: content,
    });
    expect(created).toMatchObject({
      name: 'Arrival at Kraghammer',
      session_timestamp: '2015-03-12T05:00:00.000Z',
      status: 'ended',
      group_id: '',
      summary: 'The party arrives.',
      preview: `${content.slice(0, 100)}...`,
    });
    const got = await api<Transcript>('GET', `/transcripts/${created.id}`, alice.token);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: created.id, name: 'Arrival at Kraghammer', content, group_id: '' });
    const [row] = await system.platform!.db.query<{ source: string }>(
      'select source from transcript.transcripts where id = $1',
      [created.id],
    );
    expect(row?.source).toBe('manual');

    const short = await createSession(alice.token, { transcript: 'short text' });
    expect(short.preview).toBe('short text');
    const summaryOnly = await createSession(alice.token, {
      transcript: undefined,
      summary: 'Only a summary',
    });
    expect((await api<Transcript>('GET', `/transcripts/${summaryOnly.id}`, alice.token)).body.content).toBe(
      '',
    );
  });

  it('stores and returns a transcript of 500,000 multi-byte characters', async () => {
    const big = 'ä€'.repeat(250_000);
    const created = await createSession(alice.token, { transcript: big });
    const got = await api<Transcript>('GET', `/transcripts/${created.id}`, alice.token);
    expect(got.status).toBe(200);
    expect(got.body.content).toBe(big);
    const updated = await api('PUT', `/transcripts/${created.id}`, alice.token, {
      name: 'Big',
      summary: '',
      transcript: `${big.slice(0, 499_999)}!`,
    });
    expect(updated.status).toBe(200);
    expect((await api<Transcript>('GET', `/transcripts/${created.id}`, alice.token)).body.content).toBe(
      `${big.slice(0, 499_999)}!`,
    );
  });

  it('updates, renames, and keeps what is not sent', async () => {
    const s = await createSession(alice.token, { transcript: 'before', summary: 'old' });
    const upd = await api<TranscriptListItem>('PUT', `/transcripts/${s.id}`, alice.token, {
      name: 'Into the Greyspine Mines',
      summary: 'new summary',
    });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ id: s.id, name: 'Into the Greyspine Mines', summary: 'new summary' });
    let got = (await api<Transcript>('GET', `/transcripts/${s.id}`, alice.token)).body;
    expect(got).toMatchObject({ content: 'before', session_timestamp: s.session_timestamp });

    await api('PUT', `/transcripts/${s.id}`, alice.token, {
      name: 'Into the Greyspine Mines',
      summary: 'new summary',
      session_date: '2015-03-19T02:00:00Z',
      transcript: 'after',
    });
    got = (await api<Transcript>('GET', `/transcripts/${s.id}`, alice.token)).body;
    expect(got).toMatchObject({ content: 'after', session_timestamp: '2015-03-19T02:00:00.000Z' });
    expect((await list(alice.token)).find((t) => t.id === s.id)?.preview).toBe('after');

    const renamed = await api<TranscriptListItem>('PUT', `/transcripts/${s.id}/rename`, alice.token, {
      name: ' Trial of the Take ',
    });
    expect(renamed).toMatchObject({ status: 200, body: { id: s.id, name: 'Trial of the Take' } });
  });

  it('assigns a session to a group, removes it, and lists group membership', async () => {
    const s = await createSession(alice.token);
    const g = await createGroup(alice.token, '  Vox Machina ');
    expect(g).toMatchObject({ name: 'Vox Machina', group_id: g.id, id: g.id, session_ids: [], summary: '' });

    const assigned = await api<TranscriptListItem>('PUT', `/transcripts/${s.id}/assign-group`, alice.token, {
      group_id: g.id,
    });
    expect(assigned).toMatchObject({ status: 200, body: { id: s.id, group_id: g.id } });
    expect((await groups(alice.token)).find((x) => x.id === g.id)?.session_ids).toEqual([s.id]);

    const removed = await api<TranscriptListItem>('DELETE', `/transcripts/${s.id}/remove-group`, alice.token);
    expect(removed).toMatchObject({ status: 200, body: { id: s.id, group_id: '' } });
    expect((await groups(alice.token)).find((x) => x.id === g.id)?.session_ids).toEqual([]);

    const inGroup = await createSession(alice.token, { group_id: g.id });
    expect(inGroup.group_id).toBe(g.id);
  });

  it('updates a group name or summary', async () => {
    const g = await createGroup(alice.token, 'The Mighty Nein');
    const s = await createSession(alice.token, { group_id: g.id });
    const renamed = await api<Group>('PUT', `/groups/${g.id}`, alice.token, { name: 'Mighty Nein' });
    expect(renamed).toMatchObject({
      status: 200,
      body: { name: 'Mighty Nein', summary: '', session_ids: [s.id] },
    });
    const summarised = await api<Group>('PUT', `/groups/${g.id}`, alice.token, { summary: 'A campaign.' });
    expect(summarised.body).toMatchObject({ name: 'Mighty Nein', summary: 'A campaign.', group_id: g.id });
  });

  it('deleting a group ungroups its sessions', async () => {
    const g = await createGroup(alice.token, 'Exandria Unlimited');
    const a = await createSession(alice.token, { group_id: g.id });
    const b = await createSession(alice.token, { group_id: g.id });
    const other = await createGroup(alice.token, 'Other');
    const c = await createSession(alice.token, { group_id: other.id });

    expect(await api('DELETE', `/groups/${g.id}`, alice.token)).toEqual({ status: 200, body: { ok: true } });
    expect((await groups(alice.token)).map((x) => x.id)).not.toContain(g.id);
    await waitFor(async () => {
      const items = await list(alice.token);
      return items.filter((t) => t.id === a.id || t.id === b.id).every((t) => t.group_id === '');
    });
    expect((await list(alice.token)).find((t) => t.id === c.id)?.group_id).toBe(other.id);
    expect((await groups(alice.token)).find((x) => x.id === other.id)?.session_ids).toEqual([c.id]);
    expect((await api('DELETE', `/groups/${g.id}`, alice.token)).status).toBe(404);
  });

  it('handles a redelivered or foreign evt.group.deleted without changing anything more', async () => {
    const g = await createGroup(alice.token, 'Redelivered');
    const kept = await createGroup(alice.token, 'Kept');
    const a = await createSession(alice.token, { group_id: g.id });
    const k = await createSession(alice.token, { group_id: kept.id });
    const handle = onGroupDeleted(
      new TranscriptStore(system.platform!.db, 'transcript'),
      new ShareStore(system.platform!.db, 'transcript'),
      createLogger(null, { level: 'silent' }),
    );
    await handle({ group_id: g.id, owner_id: alice.id });
    const after = await list(alice.token);
    await handle({ group_id: g.id, owner_id: alice.id });
    await handle({ group_id: kept.id, owner_id: bob.id });
    expect(await list(alice.token)).toEqual(after);
    expect(after.find((t) => t.id === a.id)?.group_id).toBe('');
    expect(after.find((t) => t.id === k.id)?.group_id).toBe(kept.id);
  });

  it('reads and writes notes exactly as given', async () => {
    const s = await createSession(alice.token);
    expect(await api('GET', `/transcripts/${s.id}/notes`, alice.token)).toEqual({
      status: 200,
      body: { content: '' },
    });
    const content = '  # Notes\n\n- Grog owes Pike 5 gp  \n';
    expect(await api('PUT', `/transcripts/${s.id}/notes`, alice.token, { content })).toEqual({
      status: 200,
      body: { content },
    });
    expect((await api('GET', `/transcripts/${s.id}/notes`, alice.token)).body).toEqual({ content });
    await api('PUT', `/transcripts/${s.id}/notes`, alice.token, { content: '' });
    expect((await api('GET', `/transcripts/${s.id}/notes`, alice.token)).body).toEqual({ content: '' });
  });

  it('deletes an ended session and refuses an active one', async () => {
    const s = await createSession(alice.token);
    await api('PUT', `/transcripts/${s.id}/notes`, alice.token, { content: 'gone with it' });
    expect(await api('DELETE', `/transcripts/${s.id}`, alice.token)).toEqual({
      status: 200,
      body: { ok: true },
    });
    expect((await api('GET', `/transcripts/${s.id}`, alice.token)).status).toBe(404);

    const [active] = await system.platform!.db.query<{ id: string }>(
      `insert into transcript.transcripts (owner_id, name, status, source) values ($1, 'Live now', 'active', 'live')
       returning id`,
      [alice.id],
    );
    const refused = await api<{ detail: string }>('DELETE', `/transcripts/${active!.id}`, alice.token);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/active session/);
    expect((await api('GET', `/transcripts/${active!.id}`, alice.token)).status).toBe(200);
  });

  describe('validation: 400 with the specification message, nothing changed', () => {
    const expect400 = async (method: string, path: string, body: unknown, detail: string | RegExp) => {
      const res = await api<{ detail: string }>(method, path, alice.token, body);
      expect(res.status).toBe(400);
      if (typeof detail === 'string') expect(res.body.detail).toBe(detail);
      else expect(res.body.detail).toMatch(detail);
    };

    it('on manual create', async () => {
      const before = await list(alice.token);
      const ok = { name: 'N', session_date: '2020-01-01T00:00:00Z', transcript: 'x' };
      await expect400('POST', '/transcripts/manual', { ...ok, name: '   ' }, 'Session name is required');
      await expect400('POST', '/transcripts/manual', { ...ok, name: undefined }, 'Session name is required');
      for (const name of ['Session 1\n# Injected', 'Session 1\r\nNext', 'Carriage\rreturn'])
        await expect400(
          'POST',
          '/transcripts/manual',
          { ...ok, name },
          'A session name cannot contain a line break',
        );
      await expect400('POST', '/transcripts/manual', { ...ok, session_date: '' }, 'Session date is required');
      await expect400('POST', '/transcripts/manual', { ...ok, session_date: 'not a date' }, /date/i);
      await expect400(
        'POST',
        '/transcripts/manual',
        { ...ok, transcript: '  ', summary: '' },
        'Please provide either a summary, a transcript, or an audio file',
      );
      await expect400(
        'POST',
        '/transcripts/manual',
        { ...ok, summary: 'x'.repeat(10_001) },
        'Session summary cannot exceed 10,000 characters',
      );
      await expect400(
        'POST',
        '/transcripts/manual',
        { ...ok, transcript: 'x'.repeat(500_001) },
        'Transcript cannot exceed 500,000 characters',
      );
      const missing = await api<{ detail: string }>('POST', '/transcripts/manual', alice.token, {
        ...ok,
        group_id: randomUUID(),
      });
      expect(missing).toEqual({ status: 404, body: { detail: 'Group not found' } });
      expect(await list(alice.token)).toEqual(before);
    });

    it('on update, rename and groups', async () => {
      const s = await createSession(alice.token, { name: 'Keep', summary: 'keep', transcript: 'keep' });
      const g = await createGroup(alice.token, 'Keep group');
      const path = `/transcripts/${s.id}`;
      await expect400('PUT', path, { name: ' ', summary: 's' }, 'Session name is required');
      await expect400(
        'PUT',
        path,
        { name: 'n', summary: 'x'.repeat(10_001) },
        'Session summary cannot exceed 10,000 characters',
      );
      await expect400(
        'PUT',
        path,
        { name: 'n', summary: 's', transcript: 'x'.repeat(500_001) },
        'Transcript cannot exceed 500,000 characters',
      );
      await expect400('PUT', path, { name: 'n', summary: 's', session_date: 'yesterday-ish' }, /date/i);
      await expect400('PUT', `${path}/rename`, { name: '  ' }, 'Transcript name cannot be empty.');
      const broken = 'A session name cannot contain a line break';
      await expect400('PUT', `${path}/rename`, { name: 'Two\nlines' }, broken);
      await expect400('PUT', `${path}/rename`, { name: 'Two\rlines' }, broken);
      await expect400('PUT', path, { name: 'Two\nlines', summary: 's' }, broken);
      await expect400('POST', '/groups', { name: ' ' }, 'Group name cannot be empty.');
      await expect400('PUT', `/groups/${g.id}`, { name: '' }, 'Group name cannot be empty.');
      const got = (await api<Transcript>('GET', path, alice.token)).body;
      expect(got).toMatchObject({
        name: 'Keep',
        summary: 'keep',
        content: 'keep',
        session_timestamp: s.session_timestamp,
      });
      expect((await groups(alice.token)).find((x) => x.id === g.id)?.name).toBe('Keep group');
      expect((await groups(alice.token)).filter((x) => x.name.trim() === '')).toEqual([]);
    });
  });

  it("answers 404 for another user's ids (and ids that are not uuids) on every route", async () => {
    const s = await createSession(alice.token, {
      name: 'Alice only',
      summary: 'secret',
      transcript: 'secret',
    });
    const g = await createGroup(alice.token, 'Alice group');
    await api('PUT', `/transcripts/${s.id}/notes`, alice.token, { content: 'alice notes' });
    const bobSession = await createSession(bob.token);
    const bobGroup = await createGroup(bob.token, 'Bob group');

    const notFound = { status: 404, body: { detail: 'Transcript not found' } };
    const groupNotFound = { status: 404, body: { detail: 'Group not found' } };
    for (const id of [s.id, 'not-a-uuid', randomUUID()]) {
      const t = `/transcripts/${id}`;
      expect(await api('GET', t, bob.token)).toEqual(notFound);
      expect(await api('PUT', t, bob.token, { name: 'x', summary: 'x' })).toEqual(notFound);
      expect(await api('PUT', `${t}/rename`, bob.token, { name: 'x' })).toEqual(notFound);
      expect(await api('PUT', `${t}/assign-group`, bob.token, { group_id: bobGroup.id })).toEqual(notFound);
      expect(await api('DELETE', `${t}/remove-group`, bob.token)).toEqual(notFound);
      expect(await api('GET', `${t}/notes`, bob.token)).toEqual(notFound);
      expect(await api('PUT', `${t}/notes`, bob.token, { content: 'x' })).toEqual(notFound);
      expect(await api('DELETE', t, bob.token)).toEqual(notFound);
    }
    for (const id of [g.id, 'not-a-uuid', randomUUID()]) {
      expect(await api('PUT', `/groups/${id}`, bob.token, { name: 'x' })).toEqual(groupNotFound);
      expect(await api('DELETE', `/groups/${id}`, bob.token)).toEqual(groupNotFound);
      expect(
        await api('PUT', `/transcripts/${bobSession.id}/assign-group`, bob.token, { group_id: id }),
      ).toEqual(groupNotFound);
      expect(
        await api('POST', '/transcripts/manual', bob.token, {
          name: 'x',
          session_date: '2020-01-01',
          transcript: 'x',
          group_id: id,
        }),
      ).toEqual(groupNotFound);
    }

    const got = (await api<Transcript>('GET', `/transcripts/${s.id}`, alice.token)).body;
    expect(got).toMatchObject({ name: 'Alice only', summary: 'secret', content: 'secret', group_id: '' });
    expect((await api('GET', `/transcripts/${s.id}/notes`, alice.token)).body).toEqual({
      content: 'alice notes',
    });
    expect((await groups(alice.token)).find((x) => x.id === g.id)?.name).toBe('Alice group');
    expect((await list(bob.token)).find((t) => t.id === bobSession.id)?.group_id).toBe('');
  });

  it("reads a session again from the gateway's copy only while every write path leaves it unchanged", async () => {
    const reads = (result: string) => contentReads(system.opsUrl!, result);
    const content = 'GM: Ні, дракон прокинувся. 🐉\nAria: I cast fireball.\nBram: I hide.';
    const s = await createSession(alice.token, { name: 'Cached', summary: 'kept', transcript: content });
    const get = () => api<Transcript>('GET', `/transcripts/${s.id}`, alice.token);

    const [first0, unchanged0, changed0] = [
      await reads('first'),
      await reads('unchanged'),
      await reads('changed'),
    ];
    const first = await get();
    expect(first.body).toMatchObject({ name: 'Cached', content, summary: 'kept' });
    expect(await reads('first')).toBe(first0 + 1);
    const again = await get();
    expect(again).toEqual(first);
    expect(await reads('unchanged')).toBe(unchanged0 + 1);

    // Every write is seen by the next read: through the API, and straight in the database as a
    // service that writes without the gateway would (the summary service, a live session's end).
    expect((await api('PUT', `/transcripts/${s.id}/rename`, alice.token, { name: 'Renamed' })).status).toBe(
      200,
    );
    expect((await get()).body).toMatchObject({ name: 'Renamed', content });
    expect(
      (await api('PATCH', `/transcripts/${s.id}/lines/2`, alice.token, { text: 'I cast sleep.' })).status,
    ).toBe(200);
    expect((await get()).body.content).toContain('Aria: I cast sleep.');
    expect(
      (await api('PUT', `/transcripts/${s.id}/summary`, alice.token, { summary: 'New summary' })).status,
    ).toBe(200);
    expect((await get()).body).toMatchObject({ summary: 'New summary', summary_outdated: false });
    await system.platform!.db.query(
      "update transcript.transcripts set name = 'Written elsewhere' where id = $1",
      [s.id],
    );
    expect((await get()).body.name).toBe('Written elsewhere');
    expect(await reads('changed')).toBe(changed0 + 4);
    expect((await get()).body.name).toBe('Written elsewhere');
    expect(await reads('unchanged')).toBe(unchanged0 + 2);

    // The copy is alice's: bob gets a 404 for it, and after the delete so does alice.
    expect(await api('GET', `/transcripts/${s.id}`, bob.token)).toEqual({
      status: 404,
      body: { detail: 'Transcript not found' },
    });
    expect((await api('DELETE', `/transcripts/${s.id}`, alice.token)).status).toBe(200);
    expect(await get()).toEqual({ status: 404, body: { detail: 'Transcript not found' } });
  });

  it('answers 304 to a browser that holds the version still stored, and the new session after a write', async () => {
    const s = await createSession(alice.token, { name: 'Revalidated', transcript: 'GM: The door creaks.' });
    const get = (token: string, etag?: string) =>
      fetch(`${system.url}/api/transcripts/${s.id}`, {
        headers: { authorization: `Bearer ${token}`, ...(etag ? { 'if-none-match': etag } : {}) },
      });
    const first = await get(alice.token);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"[0-9.]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    expect(await first.json()).toMatchObject({ name: 'Revalidated' });

    const again = await get(alice.token, etag);
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    // Another user holding the tag learns nothing: the owner check comes first.
    expect((await get(bob.token, etag)).status).toBe(404);

    expect((await api('PUT', `/transcripts/${s.id}/rename`, alice.token, { name: 'Renamed' })).status).toBe(
      200,
    );
    const changed = await get(alice.token, etag);
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(await changed.json()).toMatchObject({ name: 'Renamed' });
    expect((await get(alice.token, changed.headers.get('etag')!)).status).toBe(304);
    // A tag of another form is no version: the whole session.
    expect((await get(alice.token, '"a-b"')).status).toBe(200);
  });

  it("lists a page again from the gateway's copy while it is unchanged, and revalidates a browser's (304)", async () => {
    const reads = (result: string) => listReads(system.opsUrl!, result);
    const carol = await localSignIn(system.url, `carol-${randomUUID().slice(0, 8)}`);
    const token = carol.cookie;
    const older = await createSession(token, {
      name: 'Older',
      transcript: 'GM: One.',
      session_date: '2024-01-01T00:00:00.000Z',
    });
    const newer = await createSession(token, {
      name: 'Newer',
      transcript: 'GM: Two.',
      session_date: '2024-02-01T00:00:00.000Z',
    });
    const get = (path: string, etag?: string) =>
      fetch(`${system.url}/api${path}`, {
        headers: { authorization: `Bearer ${token}`, ...(etag ? { 'if-none-match': etag } : {}) },
      });
    const names = async (r: Response) => ((await r.json()) as TranscriptListItem[]).map((t) => t.name);

    const [first0, unchanged0, changed0, notModified0] = [
      await reads('first'),
      await reads('unchanged'),
      await reads('changed'),
      await reads('not_modified'),
    ];
    const first = await get('/transcripts?limit=1');
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"[0-9a-f]{32}"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const link = first.headers.get('link');
    expect(link).toMatch(/rel="next"/);
    expect(await names(first)).toEqual(['Newer']);
    expect(await reads('first')).toBe(first0 + 1);

    // Read again: the kept page, with the same next-page link.
    const again = await get('/transcripts?limit=1');
    expect([again.headers.get('etag'), again.headers.get('link'), await names(again)]).toEqual([
      etag,
      link,
      ['Newer'],
    ]);
    expect(await reads('unchanged')).toBe(unchanged0 + 1);
    // A browser that holds the page: 304, no body.
    const revalidated = await get('/transcripts?limit=1', etag);
    expect([revalidated.status, await revalidated.text()]).toEqual([304, '']);
    expect(await reads('not_modified')).toBe(notModified0 + 1);

    // Every write to a session on the page is seen by the next read, through the API and
    // straight in the database; a session that joins the page too.
    expect((await api('PUT', `/transcripts/${newer.id}/rename`, token, { name: 'Renamed' })).status).toBe(
      200,
    );
    const renamed = await get('/transcripts?limit=1', etag);
    expect([renamed.status, await names(renamed)]).toEqual([200, ['Renamed']]);
    await system.platform!.db.query("update transcript.transcripts set summary = 'Elsewhere' where id = $1", [
      newer.id,
    ]);
    const summarised = (await (await get('/transcripts?limit=1')).json()) as TranscriptListItem[];
    expect(summarised[0]).toMatchObject({ id: newer.id, summary: 'Elsewhere' });
    await createSession(token, {
      name: 'Newest',
      transcript: 'GM: Three.',
      session_date: '2024-03-01T00:00:00.000Z',
    });
    expect(await names(await get('/transcripts?limit=1'))).toEqual(['Newest']);
    expect(await reads('changed')).toBe(changed0 + 3);
    // Each page and each search is its own: the second page, and a search, read as they are.
    expect(await names(await get('/transcripts?limit=2&q=older'))).toEqual(['Older']);
    expect((await list(token)).map((t) => t.id)).toContain(older.id);

    // Another user holding the tag gets their own list, not carol's.
    const theirs = await fetch(`${system.url}/api/transcripts?limit=1`, {
      headers: { authorization: `Bearer ${bob.token}`, 'if-none-match': etag },
    });
    expect(theirs.status).toBe(200);
    expect(((await theirs.json()) as TranscriptListItem[]).every((t) => t.id !== newer.id)).toBe(true);
  });
});
