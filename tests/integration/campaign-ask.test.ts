// Asking a campaign, the chat's passages and the campaign summary's kept versions, offline
// (no model configured), through the gateway, the bus and the services' databases.
import {
  ASK_QUESTION_MAX_CHARS,
  formatOffset,
  type AskAnswer,
  type Group,
  type SummaryVersions,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homeGameTranscript } from '../eval/home-game.ts';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { crd3Transcript } from '../support/crd3.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

describe(`ask the campaign and keep every campaign summary (${testMode} mode, offline engine)`, () => {
  let system: TestSystem;
  let alice: string;
  let bob: string;
  let group: Group;
  let first: TranscriptListItem;
  let second: TranscriptListItem;
  const home = homeGameTranscript();

  const as =
    (token: string) =>
    <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
      apiCall<T>(system.url, method, path, token, body);

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false' } });
    alice = (await localSignIn(system.url, 'alice-ask')).cookie;
    bob = (await localSignIn(system.url, 'bob-ask')).cookie;
    group = (await as(alice)<Group>('POST', '/groups', { name: 'Whisperwood' })).body;
    const create = async (name: string, transcript: string, date: string) => {
      const res = await as(alice)<TranscriptListItem>('POST', '/transcripts/manual', {
        name,
        session_date: date,
        transcript,
        group_id: group.id,
      });
      expect(res.status).toBe(200);
      return res.body;
    };
    first = await create('The mill', home.transcript, '2026-03-01T00:00:00.000Z');
    second = await create(
      'Kraghammer',
      crd3Transcript('C1E001', { timed: true, maxChars: 30_000 }),
      '2026-03-08T00:00:00.000Z',
    );
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  it('answers a question across the sessions with the answering line first, citing its moment', async () => {
    const res = await as(alice)<AskAnswer>('POST', `/groups/${group.id}/ask`, {
      question: 'Who is hunting the crown?',
    });
    expect(res.status).toBe(200);
    const moment = `/sessions/${first.id}#t=${home.times[48]}`;
    expect(res.body.citations[0]).toEqual({
      transcript_id: first.id,
      transcript_name: 'The mill',
      seconds: expect.any(Number),
      line: 48,
      link: moment,
    });
    expect(formatOffset(res.body.citations[0]!.seconds!)).toBe(home.times[48]);
    // Quoted offline: the passage names its session, then the answering line first.
    expect(res.body.answer).toContain(
      `From [The mill](${moment}), 2026-03-01:\n> [${home.times[48]}](${moment}) GM: Grub sulks but says his boss, a hag named Mother Sallow`,
    );
    // The cited moment opens in the viewer: the session is the user's and the line is there.
    const session = await as(alice)<{ content: string }>('GET', `/transcripts/${first.id}`);
    expect(session.body.content).toContain(`[${home.times[48]}] GM: Grub sulks but says his boss`);
  });

  it('finds the line in whichever session holds it', async () => {
    const res = await as(alice)<AskAnswer>('POST', `/groups/${group.id}/ask`, {
      question: "What is the name of Vex'ahlia's bear?",
    });
    expect(res.status).toBe(200);
    expect(res.body.citations.some((c) => c.transcript_id === second.id)).toBe(true);
    expect(res.body.answer).toContain('Trinket');
  });

  it('refuses an empty or over-long question and another user’s campaign, in words, changing nothing', async () => {
    const ask = (token: string, id: string, question: unknown) =>
      as(token)<{ detail: string }>('POST', `/groups/${id}/ask`, { question });
    expect(await ask(alice, group.id, '   ')).toEqual({
      status: 400,
      body: { detail: 'Question cannot be empty.' },
    });
    expect(await ask(alice, group.id, 'x'.repeat(ASK_QUESTION_MAX_CHARS + 1))).toEqual({
      status: 400,
      body: { detail: 'Question cannot exceed 1,000 characters' },
    });
    expect((await ask(alice, group.id, 'x'.repeat(ASK_QUESTION_MAX_CHARS))).status).toBe(200);
    expect(await ask(bob, group.id, 'What is the mule called?')).toEqual({
      status: 404,
      body: { detail: 'Group not found' },
    });
    expect((await ask(alice, 'not-a-group', 'mule')).status).toBe(404);
    const empty = (await as(alice)<Group>('POST', '/groups', { name: 'Not played yet' })).body;
    expect(await as(alice)('POST', `/groups/${empty.id}/ask`, { question: 'Who is the villain?' })).toEqual({
      status: 200,
      body: {
        answer: 'This campaign has no sessions yet, so there is nothing to answer from.',
        citations: [],
      },
    });
    expect(
      (await apiCall(system.url, 'POST', `/groups/${group.id}/ask`, undefined, { question: 'mule' })).status,
    ).toBe(401);
    expect((await as(alice)('POST', `/groups/${group.id}/ask`, {})).status).toBe(400);
  });

  it('answers chat about one session from its passages, the answering line first', async () => {
    const res = await as(alice)<{ response: string }>('POST', '/chat', {
      transcript_id: first.id,
      messages: [{ role: 'user', content: 'Who runs the mill?' }],
    });
    expect(res.status).toBe(200);
    const passages = res.body.response.split(/\n\n(?=> )/).slice(1);
    expect(passages[0]).toMatch(
      new RegExp(
        `^> \\[${home.times[2]}\\]\\(/sessions/${first.id}#t=${home.times[2]}\\) GM: The village is quiet`,
      ),
    );
    expect(
      (
        await as(bob)('POST', '/chat', {
          transcript_id: first.id,
          messages: [{ role: 'user', content: 'mill' }],
        })
      ).status,
    ).toBe(404);
  });

  it('keeps every replaced campaign summary, lists it for its owner only, and restores it', async () => {
    const versions = () => as(alice)<SummaryVersions>('GET', `/groups/${group.id}/summary-versions`);
    expect((await versions()).body).toMatchObject({
      versions: [],
      total: 0,
      current_source: null,
      replace_due: false,
    });
    expect(
      (await as(alice)('PUT', `/groups/${group.id}`, { summary: 'Written by hand: the mill.' })).status,
    ).toBe(200);
    expect((await as(alice)('PUT', `/groups/${group.id}`, { summary: 'Second thoughts.' })).status).toBe(200);
    // The same text again replaces nothing.
    expect((await as(alice)('PUT', `/groups/${group.id}`, { summary: 'Second thoughts.' })).status).toBe(200);
    const listed = (await versions()).body;
    expect(listed.total).toBe(1);
    expect(listed.current_source).toBe('hand');
    expect(listed.replaced_on_change).toBe(false);
    expect(listed.versions[0]).toMatchObject({
      summary: 'Written by hand: the mill.',
      source: 'hand',
      generated_at: null,
      replaced_by: 'edit',
    });

    expect((await as(bob)('GET', `/groups/${group.id}/summary-versions`)).status).toBe(404);
    const stolen = await as(bob)(
      'POST',
      `/groups/${group.id}/summary-versions/${listed.versions[0]!.id}/restore`,
    );
    expect(stolen.status).toBe(404);
    const unknown = await as(alice)<{ detail: string }>(
      'POST',
      `/groups/${group.id}/summary-versions/${crypto.randomUUID()}/restore`,
    );
    expect(unknown).toEqual({ status: 404, body: { detail: 'Summary version not found' } });
    expect((await as(alice)<Group[]>('GET', `/groups`)).body.find((g) => g.id === group.id)!.summary).toBe(
      'Second thoughts.',
    );

    const restored = await as(alice)<Group>(
      'POST',
      `/groups/${group.id}/summary-versions/${listed.versions[0]!.id}/restore`,
    );
    expect(restored.status).toBe(200);
    expect(restored.body.summary).toBe('Written by hand: the mill.');
    const after = (await versions()).body;
    expect(after.total).toBe(2);
    expect(after.versions[0]).toMatchObject({ summary: 'Second thoughts.', replaced_by: 'restore' });
  });
});

// The specification's rule stays: the automatic check replaces the campaign summary when its
// sessions' summaries change, a hand-edited one too. The dashboard is told before (replace_due
// on a hand-written text), the text is kept, and it is restored from its versions.
describe(`the automatic check and a hand-edited campaign summary (${testMode} mode, offline engine)`, () => {
  let system: TestSystem;
  let token: string;

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true' } });
    token = (await localSignIn(system.url, 'gm-versions')).cookie;
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  it('says the check is due before it replaces the owner’s text, keeps that text, and restores it', async () => {
    const api = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
      apiCall<T>(system.url, method, path, token, body);
    const group = (await api<Group>('POST', '/groups', { name: 'Millbrook' })).body;
    const session = await api<TranscriptListItem>('POST', '/transcripts/manual', {
      name: 'The mill',
      session_date: '2026-03-01T00:00:00.000Z',
      summary: 'Hedda Vorn asks the party to find her son Tobin.',
      group_id: group.id,
    });
    const versions = async () =>
      (await api<SummaryVersions>('GET', `/groups/${group.id}/summary-versions`)).body;
    const check = () =>
      api<{ needs_update: boolean; summary: string }>('POST', `/groups/${group.id}/check-summary`);

    expect(await versions()).toMatchObject({ total: 0, current_source: null, replace_due: true });
    expect((await check()).body.needs_update).toBe(true);
    expect(await versions()).toMatchObject({
      total: 0,
      current_source: 'generated',
      replaced_on_change: true,
      replace_due: false,
    });

    expect((await api('PUT', `/groups/${group.id}`, { summary: 'Mine: Tobin sleeps.' })).status).toBe(200);
    expect(await versions()).toMatchObject({ total: 1, current_source: 'hand', replace_due: false });
    const edited = await api('PUT', `/transcripts/${session.body.id}/summary`, {
      summary: 'Hedda pays forty silver and a mule.',
    });
    expect(edited.status).toBe(200);
    // What the dashboard reads before it runs the check: it will replace the owner's text.
    expect(await versions()).toMatchObject({ current_source: 'hand', replace_due: true });

    const replaced = await check();
    expect(replaced.body.needs_update).toBe(true);
    expect(replaced.body.summary).toContain('forty silver');
    const kept = await versions();
    expect(kept.total).toBe(2);
    expect(kept.versions[0]).toMatchObject({
      summary: 'Mine: Tobin sleeps.',
      source: 'hand',
      replaced_by: 'generation',
    });

    const restored = await api<Group>(
      'POST',
      `/groups/${group.id}/summary-versions/${kept.versions[0]!.id}/restore`,
    );
    expect(restored.body.summary).toBe('Mine: Tobin sleeps.');
    expect(await versions()).toMatchObject({ total: 3, current_source: 'hand', replace_due: false });
    expect((await check()).body.needs_update).toBe(false);
  });
});
