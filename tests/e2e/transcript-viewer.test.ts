import { formatTranscriptLine } from '@chronicler/contracts';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFitsPhone, launchBrowser, newPage, signInLocally } from '../support/browser.ts';
import { contentReads, listReads } from '../support/metrics.ts';
import { crd3Blurb, crd3Transcript, crd3Turns, type Crd3Episode } from '../support/crd3.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-viewer';
const MOBILE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

interface Session {
  id: string;
  name: string;
  group_id: string;
  summary: string;
  status: string;
  content?: string;
}
interface Group {
  id: string;
  group_id: string;
  name: string;
  session_ids: string[];
}

/** Runs in the page; the test project's TypeScript has no DOM types. */
const readStorage = (page: Page, key: string) =>
  page.evaluate(
    (k) =>
      (
        globalThis as unknown as { localStorage: { getItem(key: string): string | null } }
      ).localStorage.getItem(k),
    key,
  );

/** A signed-in user: the page, and the API as that user (the token the page stored). */
async function signIn(browser: Browser, url: string, name: string) {
  const { page, errors } = await newPage(browser, url);
  await signInLocally(page, name);
  await page.waitForURL((u) => u.pathname === '/welcome' || u.pathname === '/');
  const token = await readStorage(page, 'auth_token');
  const userId = (JSON.parse((await readStorage(page, 'auth_user')) ?? '{}') as { id: string }).id;
  expect(token).toBeTruthy();
  const api = async <T>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${url}/api${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const createSession = async (
    sessionName: string,
    transcript: string,
    extra: Record<string, string> = {},
  ) => {
    const res = await api<Session>('POST', '/transcripts/manual', {
      name: sessionName,
      session_date: '2026-03-14T19:00:00.000Z',
      transcript,
      ...extra,
    });
    expect(res.status).toBe(200);
    return res.body;
  };
  return { page, errors, api, userId, createSession };
}

const main = (page: Page) => page.locator('main');
const toast = (page: Page, text: string) => page.getByText(text, { exact: true }).first().waitFor();

async function screenshots(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}-desktop.png` });
  await page.setViewportSize(MOBILE);
  // The sidebar turns into a closed drawer; wait until it has slid away.
  await page.locator('aside.sidebar').waitFor({ state: 'hidden' });
  await expectFitsPhone(page);
  await page.screenshot({ path: `${SHOTS}/${name}-mobile.png` });
  await page.setViewportSize(DESKTOP);
}

/** Consecutive CRD3 episodes as one timed transcript of at most maxChars characters. */
function longTranscript(episodes: Crd3Episode[], maxChars: number): { text: string; lines: number } {
  const lines: string[] = [];
  let size = 0;
  let seconds = 0;
  for (const episode of episodes) {
    for (const turn of crd3Turns(episode)) {
      const line = formatTranscriptLine({ seconds, speaker: turn.speaker, text: turn.text });
      if (size + line.length + 1 > maxChars) return { text: lines.join('\n'), lines: lines.length };
      lines.push(line);
      size += line.length + 1;
      seconds += 4;
    }
  }
  return { text: lines.join('\n'), lines: lines.length };
}

// Each test walks a whole screen in a real browser; on a busy 2-core machine that can exceed the default.
describe('transcript viewer (embedded)', { timeout: 120_000 }, () => {
  let system: TestSystem;
  let browser: Browser;
  beforeAll(async () => {
    // Sessions keep the summaries the test gives them (summaries.test.ts covers automatic ones).
    system = await startSystem({ mode: 'embedded', processes: 'one', env: { SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('shows a CRD3 session with times and speakers, renames it and edits its summary', async () => {
    const { page, errors, api, createSession } = await signIn(browser, system.url, 'Vex');
    const transcript = [
      crd3Transcript('C1E001', { timed: true, maxChars: 20_000 }),
      '[00:45:00] 2: Roll for initiative, everyone.',
      'The party rests by the fire.',
    ].join('\n');
    const session = await createSession('Arrival at Kraghammer', transcript);
    await page.goto(`/sessions/${session.id}`);

    await main(page).getByRole('heading', { level: 1, name: 'Arrival at Kraghammer' }).waitFor();
    await main(page).getByText('Mar 14, 2026').waitFor();
    await main(page).getByText('Ended', { exact: true }).waitFor();
    const lines = main(page).locator('.transcript-line');
    await lines.first().waitFor();
    const first = crd3Turns('C1E001')[0]!;
    expect(await lines.first().innerText()).toBe(`[00:00:00] MATT: ${first.text}`);
    expect(await lines.first().locator('.transcript-speaker').innerText()).toBe('MATT:');
    const numeric = lines.filter({ hasText: 'Roll for initiative, everyone.' });
    expect(await numeric.innerText()).toBe('[00:45:00] Speaker 2: Roll for initiative, everyone.');
    const plain = lines.filter({ hasText: 'The party rests by the fire.' });
    expect(await plain.innerText()).toBe('The party rests by the fire.');
    expect(await plain.locator('.transcript-time, .transcript-speaker').count()).toBe(0);
    expect(await lines.count()).toBe(transcript.split('\n').length);

    // Links to the edit form and the notes page; the Notes button opens the drawer.
    expect(await main(page).getByRole('link', { name: 'Edit', exact: true }).getAttribute('href')).toBe(
      `/sessions/${session.id}/edit`,
    );
    expect(await main(page).getByRole('link', { name: 'Notes page' }).getAttribute('href')).toBe(
      `/sessions/${session.id}/notes`,
    );
    const drawer = page.getByRole('dialog', { name: 'Session Notes' });
    await main(page).getByRole('button', { name: 'Notes', exact: true }).click();
    await drawer.waitFor();
    await screenshots(page, 'viewer-notes-drawer');
    await drawer.getByRole('button', { name: 'Close notes' }).click();
    await drawer.waitFor({ state: 'detached' });

    // The drawer closes when another session is opened (an in-app navigation, as the sidebar makes).
    const other = await createSession('Second Session', crd3Transcript('C1E001', { timed: true, turns: 3 }));
    await main(page).getByRole('button', { name: 'Notes', exact: true }).click();
    await drawer.waitFor();
    await page.evaluate((to) => {
      const w = globalThis as unknown as {
        history: { pushState(state: unknown, title: string, url: string): void };
        dispatchEvent(event: unknown): void;
        PopStateEvent: new (type: string) => unknown;
      };
      w.history.pushState({}, '', to);
      w.dispatchEvent(new w.PopStateEvent('popstate'));
    }, `/sessions/${other.id}`);
    await main(page).getByRole('heading', { level: 1, name: 'Second Session' }).waitFor();
    await drawer.waitFor({ state: 'detached' });
    await page.goBack();
    await main(page).getByRole('heading', { level: 1, name: 'Arrival at Kraghammer' }).waitFor();

    // Summary: none yet, so it can be generated (the offline engine), not edited; then the
    // generated one is edited: blank and too long cannot be saved; a real one is.
    const summary = main(page).locator('section', { has: page.getByRole('heading', { name: 'Summary' }) });
    await summary.getByText('No summary available').waitFor();
    expect(await summary.getByRole('button', { name: 'Edit summary' }).count()).toBe(0);
    await summary.getByRole('button', { name: 'Generate Summary' }).click();
    await toast(page, 'Summary generated successfully');
    await summary.getByRole('button', { name: 'Edit summary' }).click();
    const box = summary.getByLabel('Summary');
    const save = summary.getByRole('button', { name: 'Save' });
    expect(await box.inputValue()).toContain('### Key moments');
    await box.fill('');
    await summary.getByText('Summary content cannot be empty.').waitFor();
    expect(await save.isDisabled()).toBe(true);
    await box.fill('x'.repeat(10_001));
    await summary.getByText('Summary cannot exceed 10,000 characters').waitFor();
    expect(await save.isDisabled()).toBe(true);
    await box.fill('   ');
    await summary.getByText('Summary content cannot be empty.').waitFor();
    expect(await save.isDisabled()).toBe(true);
    const blurb = crd3Blurb('C1E001');
    await box.fill(blurb);
    expect(await save.isDisabled()).toBe(false);
    // A save that fails: a toast and the catalogue's in-page message; the draft stays to retry.
    const summaryCall = `**/api/transcripts/${session.id}/summary`;
    await page.route(summaryCall, (route) =>
      route.request().method() === 'PUT'
        ? route.fulfill({ status: 500, json: { detail: 'boom' } })
        : route.fallback(),
    );
    await save.click();
    await toast(page, 'Failed to update summary');
    await summary.getByText('Failed to update summary. Please try again.').waitFor();
    expect(await box.inputValue()).toBe(blurb);
    await page.unroute(summaryCall);
    await save.click();
    await toast(page, 'Summary updated successfully');
    await summary.locator('.viewer-summary-text').waitFor();
    // Shown as markdown: the blurb's line breaks inside a paragraph read as spaces.
    const shownSummary = await summary.locator('.viewer-summary-text').innerText();
    expect(shownSummary.replace(/\s+/g, ' ').trim()).toBe(blurb.replace(/\s+/g, ' ').trim());
    expect((await api<Session>('GET', `/transcripts/${session.id}`)).body.summary).toBe(blurb.trim());
    await screenshots(page, 'viewer-ended');

    // Rename: blank is refused with an alert and changes nothing.
    let alertText = '';
    page.once('dialog', (dialog) => {
      alertText = dialog.message();
      void dialog.accept();
    });
    await main(page).getByRole('button', { name: 'Rename session' }).click();
    const nameBox = main(page).getByLabel('Session name');
    await nameBox.fill('   ');
    await nameBox.press('Enter');
    await expect.poll(() => alertText).toBe('Transcript name cannot be empty.');
    expect((await api<Session>('GET', `/transcripts/${session.id}`)).body.name).toBe('Arrival at Kraghammer');
    await nameBox.fill('  The Mines of Kraghammer ');
    await main(page).locator('.viewer-rename').getByRole('button', { name: 'Save' }).click();
    await toast(page, 'Transcript renamed successfully');
    await main(page).getByRole('heading', { level: 1, name: 'The Mines of Kraghammer' }).waitFor();
    expect((await api<Session>('GET', `/transcripts/${session.id}`)).body.name).toBe(
      'The Mines of Kraghammer',
    );
    const list = await api<Session[]>('GET', '/transcripts');
    expect(list.body.find((s) => s.id === session.id)?.name).toBe('The Mines of Kraghammer');
    expect(errors).toEqual([]);
  });

  it('assigns a session to an existing group and to a new one, calls nobody for no change, and removes it', async () => {
    const { page, errors, api, createSession } = await signIn(browser, system.url, 'Keyleth');
    const existing = (await api<Group>('POST', '/groups', { name: 'Vox Machina' })).body;
    const session = await createSession(
      'Into the Underdark',
      crd3Transcript('C1E005', { timed: true, turns: 40 }),
    );
    const calls: string[] = [];
    page.on('request', (req) => {
      if (req.method() !== 'GET' && req.url().includes('/api/'))
        calls.push(`${req.method()} ${new URL(req.url()).pathname}`);
    });
    await page.goto(`/sessions/${session.id}`);
    const header = main(page).locator('.viewer-group');
    await header.getByText('No group').waitFor();

    await header.getByRole('button', { name: 'Assign to group' }).click();
    const dialog = page.getByRole('dialog', { name: 'Assign to Group' });
    const saveAssignment = dialog.getByRole('button', { name: 'Save Assignment' });
    expect(await saveAssignment.isDisabled()).toBe(true);
    expect(await dialog.getByRole('button', { name: 'Remove from group' }).count()).toBe(0);
    await dialog.getByLabel('Group').selectOption({ label: 'Vox Machina' });
    await saveAssignment.click();
    await toast(page, 'Session assigned to group successfully');
    await dialog.waitFor({ state: 'detached' });
    await header.getByRole('link', { name: 'Vox Machina' }).waitFor();
    expect(await header.getByRole('link', { name: 'Vox Machina' }).getAttribute('href')).toBe(
      `/groups/${existing.group_id}`,
    );
    expect((await api<Session>('GET', `/transcripts/${session.id}`)).body.group_id).toBe(existing.id);
    expect(calls).toEqual([`PUT /api/transcripts/${session.id}/assign-group`]);

    // The same group again: the modal closes and the server is not called.
    await header.getByRole('button', { name: 'Change group' }).click();
    expect(await dialog.getByLabel('Group').inputValue()).toBe(existing.group_id);
    await saveAssignment.click();
    await dialog.waitFor({ state: 'detached' });
    expect(calls).toHaveLength(1);

    // A new group: nothing typed keeps Save disabled, blank is refused without a call.
    await header.getByRole('button', { name: 'Change group' }).click();
    await dialog.getByLabel('Group').selectOption({ label: '+ Create a new group' });
    expect(await saveAssignment.isDisabled()).toBe(true);
    await dialog.getByLabel('New group name').fill('   ');
    await saveAssignment.click();
    await dialog.getByRole('alert').getByText('New group name cannot be empty.').waitFor();
    expect(calls).toHaveLength(1);
    await screenshots(page, 'viewer-assign-modal');
    await dialog.getByLabel('New group name').fill('  The Slayer\u2019s Take ');
    await saveAssignment.click();
    await toast(page, 'Session assigned to group successfully');
    await header.getByRole('link', { name: 'The Slayer\u2019s Take' }).waitFor();
    const groups = (await api<Group[]>('GET', '/groups')).body;
    const created = groups.find((g) => g.name === 'The Slayer\u2019s Take');
    expect(created?.session_ids).toEqual([session.id]);
    expect(groups.find((g) => g.id === existing.id)?.session_ids).toEqual([]);
    expect((await api<Session>('GET', `/transcripts/${session.id}`)).body.group_id).toBe(created?.id);

    // Removal.
    await header.getByRole('button', { name: 'Change group' }).click();
    await dialog.getByRole('button', { name: 'Remove from group' }).click();
    await toast(page, 'Session removed from group successfully');
    await dialog.waitFor({ state: 'detached' });
    await header.getByText('No group').waitFor();
    expect((await api<Session>('GET', `/transcripts/${session.id}`)).body.group_id).toBe('');
    expect(calls.slice(1)).toEqual([
      'POST /api/groups',
      `PUT /api/transcripts/${session.id}/assign-group`,
      `DELETE /api/transcripts/${session.id}/remove-group`,
    ]);
    expect(errors).toEqual([]);
  });

  it('deletes a session after confirmation and lands on the dashboard', async () => {
    const { page, errors, api, createSession } = await signIn(browser, system.url, 'Scanlan');
    const session = await createSession('A Short Rest', crd3Transcript('C1E022', { timed: true, turns: 10 }));
    await page.goto(`/sessions/${session.id}`);
    await main(page).getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Session' });
    await dialog.getByText('A Short Rest').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await api('GET', `/transcripts/${session.id}`)).status).toBe(200);

    await main(page).getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await toast(page, 'Session deleted successfully');
    await page.waitForURL((u) => u.pathname === '/');
    await page.getByRole('heading', { name: 'Your Dashboard', level: 1 }).waitFor();
    expect((await api('GET', `/transcripts/${session.id}`)).status).toBe(404);
    // History was replaced: going back does not return to the deleted session.
    await page.goBack();
    expect(new URL(page.url()).pathname).not.toBe(`/sessions/${session.id}`);
    expect(errors).toEqual([]);
  });

  it('shows an active session without delete or summary, with the lines stored so far', async () => {
    const { page, errors, userId } = await signIn(browser, system.url, 'Pike');
    const db = system.platform!.db;
    // A live session as the transcript service keeps one: the transcript, its live session and
    // its stored lines (the content is built from them while it runs).
    const [row] = await db.query<{ id: string }>(
      "insert into transcript.transcripts (owner_id, name, status, source) values ($1, 'Live at the Slayer\u2019s Take', 'active', 'live') returning id",
      [userId],
    );
    await db.query(
      "insert into transcript.live_sessions (transcript_id, owner_id, origin, started_at, final_count) values ($1, $2, 'replay', now() - interval '1 minute', 2)",
      [row!.id, userId],
    );
    await db.query(
      `insert into transcript.transcript_lines (transcript_id, seq, utterance_id, speaker_tag, speaker_name, text, start_seconds, end_seconds)
       values ($1, 1, 'u1', '"MATT"', 'MATT', 'Welcome back, everyone.', 5, 7),
              ($1, 2, 'u2', '3', null, 'Grog wants to punch the door.', 9, 11)`,
      [row!.id],
    );
    await page.goto(`/sessions/${row!.id}`);
    await main(page).getByText('[00:00:05] MATT: Welcome back, everyone.').waitFor();
    await main(page).getByText('[00:00:09] Speaker 3: Grog wants to punch the door.').waitFor();
    await main(page).getByText('Active', { exact: true }).waitFor();
    expect(await main(page).getByRole('button', { name: 'Delete' }).count()).toBe(0);
    expect(await main(page).getByRole('heading', { name: 'Summary' }).count()).toBe(0);
    expect(await main(page).getByText('No summary available').count()).toBe(0);
    await screenshots(page, 'viewer-active');
    expect(errors).toEqual([]);
  });

  it('follows an uploaded recording from processing to completed, and shows why a failed one failed', async () => {
    const { page, errors, userId } = await signIn(browser, system.url, 'Percy');
    const db = system.platform!.db;
    const insertAudio = async (name: string, status: string, error = '') => {
      const [row] = await db.query<{ id: string }>(
        `insert into transcript.transcripts (owner_id, name, source, transcription_status, transcription_error)
         values ($1, $2, 'audio', $3, $4) returning id`,
        [userId, name, status, error],
      );
      return row!.id;
    };
    const processing = await insertAudio('Recording: The Sunken Tomb', 'processing');
    await page.goto(`/sessions/${processing}`);
    await main(page).getByText('Transcribing audio...').waitFor();
    await main(page).getByText('Transcribing...', { exact: true }).waitFor();
    await screenshots(page, 'viewer-transcribing');

    const content = crd3Transcript('C2E003', { timed: true, turns: 25 });
    await db.query(
      "update transcript.transcripts set transcription_status = 'completed', content = $2, audio_seconds = 100 where id = $1",
      [processing, content],
    );
    const lines = main(page).locator('.transcript-line');
    await lines.first().waitFor({ timeout: 15_000 });
    expect(await lines.count()).toBe(25);
    expect(await main(page).getByText('Transcribing audio...').count()).toBe(0);
    expect(await main(page).getByText('Transcribing...', { exact: true }).count()).toBe(0);

    const reason = 'The speech service could not decode the recording (unsupported codec).';
    const failed = await insertAudio('Recording: Lost Audio', 'failed', reason);
    await page.goto(`/sessions/${failed}`);
    const alert = main(page).getByRole('alert');
    await alert.getByText('Transcription failed').waitFor();
    await alert.getByText(reason).waitFor();
    await main(page).locator('.viewer-badge-failed').waitFor();
    await screenshots(page, 'viewer-failed');
    expect(errors).toEqual([]);
  });

  it('opens a session again from the copy the browser revalidated (304), and a renamed one anew', async () => {
    const { page, errors, api, createSession } = await signIn(browser, system.url, 'Keyleth');
    const session = await createSession(
      'The Sunken Tomb',
      crd3Transcript('C1E056', { timed: true, turns: 40 }),
    );
    // What the gateway answered reads of one session with (the browser shows a revalidated copy as a 200).
    const reads = (result: string) => contentReads(system.opsUrl!, result);
    // And the pages of the sidebar's list.
    const listed = (result: string) => listReads(system.opsUrl!, result);
    const sidebar = page.locator('.sidebar');
    await page.goto(`/sessions/${session.id}`);
    await main(page).getByRole('heading', { level: 1, name: 'The Sunken Tomb' }).waitFor();
    await sidebar.getByText('The Sunken Tomb').first().waitFor();
    const [notModified, listNotModified] = [await reads('not_modified'), await listed('not_modified')];
    await page.reload();
    await main(page).getByRole('heading', { level: 1, name: 'The Sunken Tomb' }).waitFor();
    await sidebar.getByText('The Sunken Tomb').first().waitFor();
    expect(await reads('not_modified')).toBeGreaterThan(notModified);
    await expect.poll(() => listed('not_modified')).toBeGreaterThan(listNotModified);

    // Renamed elsewhere: the browser's tag names an old version, and the new session comes whole.
    const changed = await reads('changed');
    expect((await api('PUT', `/transcripts/${session.id}/rename`, { name: 'The Risen Tomb' })).status).toBe(
      200,
    );
    await page.reload();
    await main(page).getByRole('heading', { level: 1, name: 'The Risen Tomb' }).waitFor();
    expect(await reads('changed')).toBeGreaterThan(changed);
    // The sidebar's page changed with it: the new name, never the kept one.
    await sidebar.getByText('The Risen Tomb').first().waitFor();
    expect(await sidebar.getByText('The Sunken Tomb').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("shows a not-found state for another user's session and an unknown id", async () => {
    const owner = await signIn(browser, system.url, 'Grog');
    const session = await owner.createSession(
      'Grog\u2019s Secret',
      crd3Transcript('C1E056', { timed: true, turns: 5 }),
    );
    const other = await signIn(browser, system.url, 'Tiberius');
    await other.page.goto(`/sessions/${session.id}`);
    await main(other.page).getByRole('heading', { name: 'Session not found' }).waitFor();
    expect(await other.page.getByText('Grog\u2019s Secret').count()).toBe(0);
    expect(await main(other.page).getByRole('link', { name: 'Back to Dashboard' }).getAttribute('href')).toBe(
      '/',
    );
    await screenshots(other.page, 'viewer-not-found');
    await other.page.goto('/sessions/00000000-0000-4000-8000-000000000000');
    await main(other.page).getByRole('heading', { name: 'Session not found' }).waitFor();
    expect(other.errors).toEqual([]);
  });

  it('opens a transcript of about 500,000 characters at once and reaches its last line by time and by find', async () => {
    const { page, errors, createSession } = await signIn(browser, system.url, 'Vax');
    const long = longTranscript(['C1E005', 'C1E022', 'C2E003'], 499_000);
    expect(long.text.length).toBeGreaterThan(490_000);
    const session = await createSession('Three Nights of Critical Role', long.text);
    const lastLine = long.text.split('\n').at(-1)!;
    const lastTime = /^\[(\d\d:\d\d:\d\d)\]/.exec(lastLine)![1]!;

    // Long tasks (over 50 ms) are what makes a page stop answering input; record them.
    await page.addInitScript(() => {
      const w = globalThis as unknown as { __longTasks: number[] };
      w.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.__longTasks.push(entry.duration);
        // 'longtask' is a browser entry type that Node's typings do not list.
      }).observe({ type: 'longtask', buffered: true } as never);
    });
    const started = Date.now();
    await page.goto(`/sessions/${session.id}`);
    await main(page).locator('.transcript-line').first().waitFor();
    const firstLineMs = Date.now() - started;
    // Virtualised: the page holds the rows around the view, not thousands.
    const rendered = await main(page).locator('.transcript-line').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(300);

    // Jump to the last line's time: it is shown.
    await main(page).getByPlaceholder('HH:MM:SS').fill(lastTime);
    await main(page).getByRole('button', { name: 'Go' }).click();
    const lastText = lastLine.replace(/^\[\d\d:\d\d:\d\d\] [^:]+: /, '');
    await main(page)
      .locator('.transcript-line', { hasText: lastText.slice(0, 60) })
      .last()
      .waitFor();

    // Back to the top, then find a phrase of the last line.
    await main(page).getByPlaceholder('HH:MM:SS').fill('00:00:00');
    await main(page).getByRole('button', { name: 'Go' }).click();
    await main(page).getByPlaceholder('Find in transcript').fill(lastText.slice(0, 40));
    await main(page)
      .getByText(/^\d+ of \d+$/)
      .waitFor();
    await main(page).getByPlaceholder('Find in transcript').press('Shift+Enter');
    await main(page)
      .locator('.transcript-line', { hasText: lastText.slice(0, 40) })
      .last()
      .waitFor();
    const completeMs = Date.now() - started;
    const longTasks = await page.evaluate(
      () => (globalThis as unknown as { __longTasks: number[] }).__longTasks,
    );
    console.log(
      `500k transcript: ${long.lines} lines, ${long.text.length} chars; first line after ${firstLineMs} ms, ` +
        `last line reached by time and find after ${completeMs} ms; long tasks: ${longTasks.length}, longest ${Math.round(Math.max(0, ...longTasks))} ms`,
    );
    await screenshots(page, 'viewer-long');
    expect(errors).toEqual([]);
  });
});
