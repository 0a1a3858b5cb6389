import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeepgramPeer, type DeepgramPeer } from '../peers/deepgram.ts';
import { wav } from '../support/audio.ts';
import { localSignIn } from '../support/auth.ts';
import { controlsCutOff, launchBrowser, newPage, signInLocally } from '../support/browser.ts';
import { crd3Transcript } from '../support/crd3.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

// Screenshots a person looks at: formatting, phone layouts, fonts are not all in the DOM.
const SHOTS = '/tmp/shots-polish';

interface Created {
  id: string;
}

/** Markdown as an AI writes it: emphasis, a list, a heading. Over 200 characters as plain text. */
const CAMPAIGN_SUMMARY = [
  '_Offline campaign summary of 2 sessions_',
  '',
  '## Whitestone',
  '',
  '- **Beau** and **Caleb** scout the walls of Whitestone while the Briarwoods hold a feast.',
  '- [00:03:54] Matt: The gates open at dawn, and *nobody* expects the rebellion that follows.',
  '- Percival finds the key to the vault beneath the old castle and keeps it for himself.',
].join('\n');

const SESSION_SUMMARY = '_Offline summary of the session_\n\n- [00:03:54] Matt: **Beau** opens the door.';

describe('polish: what a user sees on every screen', () => {
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let token: string;
  let groupId: string;
  let userId: string;
  let deepgram: DeepgramPeer;
  const ids: Record<string, string> = {};

  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${system.url}/api${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
  const main = () => page.locator('#main-content');
  const shot = (name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // Uploads are accepted only with a speech provider: the local Deepgram peer.
    deepgram = await startDeepgramPeer();
    system = await startSystem({ mode: 'embedded', env: { ...deepgram.env(), AUTH_LOCAL_ENABLED: 'true' } });
    // The account exists before the browser signs in, so it signs in as an admin.
    const first = await localSignIn(system.url, 'Vex');
    userId = first.body.user?.id ?? '';
    await system.platform!.db.query('update auth.users set is_admin = true where id = $1', [userId]);
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    await signInLocally(page, 'Vex');
    await page.waitForURL('**/welcome');
    token = (await localSignIn(system.url, 'Vex')).cookie;

    groupId = (await api<Created>('POST', '/groups', { name: 'Vox Machina' })).id;
    await api('PUT', `/groups/${groupId}`, { summary: CAMPAIGN_SUMMARY });
    ids.marked = (
      await api<Created>('POST', '/transcripts/manual', {
        name: 'Whitestone Siege',
        session_date: '2026-02-07T19:00:00Z',
        summary: SESSION_SUMMARY,
        transcript: crd3Transcript('C1E056', { timed: true, maxChars: 4_000 }),
        group_id: groupId,
      })
    ).id;
    // Long names: they must shorten on a phone, never push the date or the icons off screen.
    const longGroup = await api<Created>('POST', '/groups', {
      name: 'The Most Illustrious Order of the Platinum Dragon and Friends',
    });
    await api('POST', '/transcripts/manual', {
      name: 'TheLongRoadThroughTheWhisperingWoodsOfSyngornAndBeyond',
      session_date: '2026-01-26T19:00:00Z',
      summary: 'A long walk.',
      group_id: longGroup.id,
    });
    // A date only, as the session form sends it: the start of the local day.
    ids.dateOnly = (
      await api<Created>('POST', '/transcripts/manual', {
        name: 'A Day Without Hours',
        session_date: new Date(2026, 0, 26).toISOString(),
        summary: 'Nothing happened at any particular time.',
      })
    ).id;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await deepgram?.close();
  });

  it('renders summaries formatted, and the collapsed campaign preview as plain text cut at 200', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`/groups/${groupId}`);
    const campaign = main().locator('section', {
      has: page.getByRole('heading', { name: 'Campaign Summary' }),
    });
    const preview = campaign.locator('.group-summary-text');
    await preview.waitFor();
    const text = (await preview.textContent()) ?? '';
    expect(text.replace(/\s+/g, ' ')).toMatch(
      /^Offline campaign summary of 2 sessions Whitestone Beau and Caleb/,
    );
    expect(text).not.toMatch(/[*_#]/);
    expect(text.endsWith('...')).toBe(true);
    expect(text.length).toBeLessThanOrEqual(203);

    await campaign.getByRole('button', { name: 'Show more' }).click();
    expect(await campaign.locator('.group-summary-text strong').allTextContents()).toEqual(['Beau', 'Caleb']);
    expect(await campaign.locator('.group-summary-text li').count()).toBe(3);
    expect(await campaign.locator('.group-summary-text').innerText()).not.toMatch(/\*\*|^_|^- |##/m);

    const card = main().locator('.session-card', {
      has: page.getByRole('heading', { name: 'Whitestone Siege' }),
    });
    expect((await card.locator('.session-card-summary').textContent())?.replace(/\s+/g, ' ')).toBe(
      'Offline summary of the session [00:03:54] Matt: Beau opens the door.',
    );
    await shot('1-group-dashboard-markdown');

    await page.goto(`/sessions/${ids.marked}`);
    const summary = main().locator('.viewer-summary-text');
    await summary.waitFor();
    expect(await summary.locator('strong').allTextContents()).toEqual(['Beau']);
    expect(await summary.innerText()).not.toContain('**');
    await shot('1-viewer-markdown');
    expect(errors).toEqual([]);
  });
  it('overflows sideways on no main screen and cuts off no control at 390 px (and the dashboard at 320 and 768)', async () => {
    const screens: [string, string, () => Promise<unknown>][] = [
      ['dashboard', '/', () => main().getByRole('heading', { name: 'Your Groups' }).waitFor()],
      ['welcome', '/welcome', () => main().getByRole('heading', { level: 1 }).waitFor()],
      ['group', `/groups/${groupId}`, () => main().locator('.session-card').first().waitFor()],
      [
        'planning',
        `/groups/${groupId}/planning`,
        () => main().getByText('Campaign Planning').first().waitFor(),
      ],
      ['add-session', '/add-session', () => main().getByLabel('Session Name *').waitFor()],
      ['viewer', `/sessions/${ids.marked}`, () => main().locator('.viewer-summary-text').waitFor()],
      ['edit', `/sessions/${ids.marked}/edit`, () => main().getByLabel('Session Name *').waitFor()],
      [
        'notes',
        `/sessions/${ids.marked}/notes`,
        () => main().getByRole('button', { name: /Save/ }).waitFor(),
      ],
      ['admin', '/admin', () => main().getByText('Active Sessions').first().waitFor()],
    ];
    const overflow = () =>
      page.evaluate(() => {
        const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } })
          .document;
        return doc.documentElement.scrollWidth - (globalThis as unknown as { innerWidth: number }).innerWidth;
      });
    const wide: string[] = [];
    for (const width of [390, 320, 768]) {
      await page.setViewportSize({ width, height: 844 });
      for (const [name, path, ready] of width === 390 ? screens : screens.slice(0, 3)) {
        await page.goto(path);
        await ready();
        const extra = await overflow();
        if (extra > 0) wide.push(`${name} at ${width}: ${extra}px`);
        for (const control of await controlsCutOff(page)) wide.push(`${name} at ${width}: ${control}`);
        if (width === 390) await shot(`4-${name}-390`);
      }
    }
    expect(wide).toEqual([]);
    // The dashboard's parts are whole, not clipped: the date, the buttons, the delete icon.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/');
    await main().getByRole('heading', { name: 'Your Groups' }).waitFor();
    await main().getByText('Feb 7, 2026', { exact: true }).waitFor();
    const inView = async (name: string, role: 'button' | 'link' | 'text') => {
      const target =
        role === 'text'
          ? main().getByText(name, { exact: true }).first()
          : main().getByRole(role, { name, exact: true });
      const box = (await target.boundingBox())!;
      return box.x >= 0 && box.x + box.width <= 390;
    };
    expect(await inView('Jan 26, 2026', 'text')).toBe(true);
    expect(await inView('New Session', 'link')).toBe(true);
    expect(await inView('New Group', 'button')).toBe(true);
    expect(await inView('Delete group Vox Machina', 'button')).toBe(true);
    expect(
      await inView('Delete group The Most Illustrious Order of the Platinum Dragon and Friends', 'button'),
    ).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(errors).toEqual([]);
  });
  it("limits the username to the server's 32 characters and shows the server's refusal, not 'Authentication failed'", async () => {
    const { page: login, errors: loginErrors } = await newPage(browser, system.url);
    await login.goto('/login');
    await login.getByRole('radio', { name: 'Create account' }).check();
    const username = login.getByLabel('Username');
    expect(await username.getAttribute('maxlength')).toBe('32');
    await username.fill('x'.repeat(40));
    expect(await username.inputValue()).toBe('x'.repeat(32));
    // A client without the limit (an older page, a script) still gets a clear answer.
    await username.evaluate((input) => input.removeAttribute('maxlength'));
    await username.fill('Grog Strongjaw of the Herd of Storms');
    await login.getByLabel('Password', { exact: true }).fill('a long enough password');
    await login.getByLabel('Confirm password').fill('a long enough password');
    await login.getByRole('button', { name: 'Create local account' }).click();
    await login.getByRole('alert').getByText('Username cannot exceed 32 characters.').waitFor();
    await login.screenshot({ path: `${SHOTS}/6-login-long-name.png` });
    expect(await login.getByText('Authentication failed').count()).toBe(0);
    expect(loginErrors).toEqual([]);
    await login.context().close();
  });

  it('shows a date-only session in the sidebar without a time, and a timed one with its time', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/');
    const sidebar = page.locator('.sidebar');
    const item = sidebar.locator('li', { hasText: 'A Day Without Hours' });
    await item.waitFor();
    const meta = (await item.locator('.browser-item-meta').textContent()) ?? '';
    expect(meta).toBe('Jan 26, 2026');
    expect(meta).not.toContain('12:00 AM');
    await sidebar.getByText('Vox Machina').first().click();
    const timed = sidebar.locator('li', { hasText: 'Whitestone Siege' });
    expect(await timed.locator('.browser-item-meta').textContent()).toMatch(
      /^Feb 7, 2026, \d{1,2}:00 [AP]M$/,
    );
    await shot('7-sidebar-dates');
    expect(errors).toEqual([]);
  });

  it("follows a new session's card from its summary state to the summary without a refresh", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`/groups/${groupId}/add-session`);
    await main().getByLabel('Session Name *').fill('The Feast of the Briarwoods');
    await main().getByLabel('Session Date *').fill('2026-02-14');
    await main()
      .getByLabel('Session Transcript')
      .fill(crd3Transcript('C2E003', { timed: true, maxChars: 3_000 }));
    await main().getByRole('button', { name: 'Create Session' }).click();
    await page.waitForURL(`**/groups/${groupId}`);
    const card = main().locator('.session-card', {
      has: page.getByRole('heading', { name: 'The Feast of the Briarwoods' }),
    });
    const summary = card.locator('.session-card-summary:not(.is-empty)');
    // No reload, no Refresh click: the page asks again while the summary is on its way.
    await summary.waitFor({ timeout: 30_000 });
    // The offline digest, its first section first: the card spends no preview on the notice.
    expect(await summary.textContent()).toMatch(/^Key moments/);
    await shot('3-new-session-card');
    expect(errors).toEqual([]);
  });
  it('keeps notes in one format, HTML: the page edits the drawer notes as markdown, the drawer renders old markdown', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const notesOf = async () =>
      (await api<{ content: string }>('GET', `/transcripts/${ids.marked}/notes`)).content;
    // Written by the drawer: HTML. The page shows it rendered, and edits it as markdown.
    await api('PUT', `/transcripts/${ids.marked}/notes`, {
      content: '<h2>Loot</h2><p>Vax keeps the <strong>key</strong>.</p><ul><li><p>a sword</p></li></ul>',
    });
    await page.goto(`/sessions/${ids.marked}/notes`);
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByRole('heading', { name: 'Loot', level: 2 }).waitFor();
    expect(await preview.locator('strong').textContent()).toBe('key');
    await main().getByRole('button', { name: 'Edit', exact: true }).click();
    const textarea = page.getByLabel('Notes', { exact: true });
    expect(await textarea.inputValue()).toBe('## Loot\n\nVax keeps the **key**.\n\n- a sword');
    await textarea.fill('## Loot\n\nVax keeps the **key**.\nKeyleth has the map.\n\n- a sword');
    await main().getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Notes saved successfully').waitFor();
    expect(await notesOf()).toBe(
      '<h2>Loot</h2><p>Vax keeps the <strong>key</strong>.</p><p>Keyleth has the map.</p><ul><li>a sword</li></ul>',
    );
    await shot('2-notes-page');

    // Saved as markdown by an older notes page: the drawer shows it formatted, not as '# ...'.
    await api('PUT', `/transcripts/${ids.marked}/notes`, { content: '# Heading\n\nSome **bold** words.' });
    await page.goto(`/sessions/${ids.marked}`);
    await main().getByRole('button', { name: 'Notes', exact: true }).click();
    const drawer = page.getByRole('dialog', { name: 'Session Notes' });
    const editor = drawer.locator('.ProseMirror');
    await editor.locator('h1').getByText('Heading').waitFor();
    expect(await editor.locator('strong').textContent()).toBe('bold');
    expect(await editor.innerText()).not.toMatch(/#|\*\*/);
    await page.screenshot({ path: `${SHOTS}/2-notes-drawer.png` });
    expect(errors).toEqual([]);
  });
  it('pads the planning editor inside its focus ring, and offline says it cannot change the document, leaving it as typed', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`/groups/${groupId}/planning`);
    await page.getByText('Connected', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'OPEN DOC' }).click();
    const editor = page
      .getByRole('region', { name: 'Planning document' })
      .getByRole('textbox', { name: 'Session plan' });
    await editor.click();
    await page.keyboard.type('The party enters the tomb.');
    // The text starts well inside the editable box, which is what the focus ring outlines.
    const gap = await editor.evaluate((element) => {
      const box = element.getBoundingClientRect();
      const text = element.querySelector('p')!.getBoundingClientRect();
      return { left: text.left - box.left, top: text.top - box.top };
    });
    expect(gap.left).toBeGreaterThanOrEqual(12);
    expect(gap.top).toBeGreaterThanOrEqual(8);
    await page.keyboard.press('Shift+Home');
    const chat = page.getByRole('region', { name: 'Planning chat' });
    await page
      .getByLabel('Planning message')
      .fill('Rewrite the selected text in the document to be more dramatic.');
    await page.getByLabel('Planning message').press('Enter');
    // Without a model nothing writes into the document: the fallback says so.
    await chat.getByText(/cannot write or change the planning document; nothing in it was changed/).waitFor();
    expect(await editor.textContent()).toBe('The party enters the tomb.');
    await editor.click();
    await shot('8-planning-editor');
    expect(errors).toEqual([]);
  });
  it('opens the chat from the layout, with the welcome guide when no transcript is selected', async () => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto('/');
      await main().getByRole('heading', { name: 'Your Dashboard' }).waitFor();
      if (width === 390) await page.getByRole('button', { name: 'Open sidebar' }).click();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'AI Chat' }).click();
      const drawer = page.getByRole('dialog', { name: 'Chat' });
      await drawer.getByText('Select a transcript first to start chatting about it.').waitFor();
      await drawer.getByText('[HH:MM:SS]').waitFor();
      expect(await drawer.getByPlaceholder('Select a transcript first...').isDisabled()).toBe(true);
      await shot(`9-chat-welcome-${width}`);
      await drawer.getByRole('button', { name: /close/i }).first().click();
      expect(await drawer.count()).toBe(0);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(errors).toEqual([]);
  });
  it('loads the login page and the dashboard without the code of the other screens', async () => {
    const { page: fresh, errors: freshErrors } = await newPage(browser, system.url);
    const scripts = new Map<string, number>();
    fresh.on('response', async (response) => {
      if (response.request().resourceType() !== 'script' || response.status() !== 200) return;
      const body = await response.body().catch(() => null);
      if (body) scripts.set(new URL(response.url()).pathname, body.length);
    });
    await signInLocally(fresh, 'Vex');
    await fresh.waitForURL((url) => url.pathname === '/');
    await fresh.locator('#main-content').getByRole('heading', { name: 'Your Groups' }).waitFor();
    const names = [...scripts.keys()];
    const total = [...scripts.values()].reduce((sum, size) => sum + size, 0);
    // The whole app was one 1.5 MB script; login and dashboard now take about a third of it.
    expect(total).toBeLessThan(600_000);
    for (const screen of [
      'AdminPage',
      'PlanningPage',
      'TranscriptViewerPage',
      'SessionNotesPage',
      'GroupDashboardPage',
    ]) {
      expect(names.some((name) => name.includes(screen))).toBe(false);
    }
    // Another screen brings its own code on its first visit.
    await fresh.goto(`/groups/${groupId}`);
    await fresh.locator('.session-card').first().waitFor();
    expect([...scripts.keys()].some((name) => name.includes('GroupDashboardPage'))).toBe(true);
    expect(freshErrors).toEqual([]);
    await fresh.context().close();
  });
  it('refuses junk that only looks like audio, and a failed transcription offers delete, not a summary', async () => {
    // Eleven sync bits, then no legal MPEG header: a file named .mp3 that no decoder reads.
    const junk = Buffer.alloc(4096, 0xff);
    const form = new FormData();
    form.set('name', 'Junk upload');
    form.set('session_date', '2026-03-01T00:00:00.000Z');
    form.set('audio', new Blob([junk], { type: 'audio/mpeg' }), 'junk.mp3');
    const upload = await fetch(`${system.url}/api/transcripts/manual-audio`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: form,
    });
    expect(upload.status).toBe(400);
    expect(((await upload.json()) as { detail: string }).detail).toBe(
      'Invalid file type. Please select an audio file (MP3, M4A, WAV, etc.). Detected type: audio/mpeg',
    );

    // A recording that was accepted and then failed at the speech provider.
    const [row] = await system.platform!.db.query<{ id: string }>(
      `insert into transcript.transcripts (owner_id, name, source, transcription_status, transcription_error)
       values ($1, 'Recording from the Tavern', 'audio', 'failed', $2) returning id`,
      [userId, 'Transcription failed: Deepgram could not be reached: fetch failed'],
    );
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`/sessions/${row!.id}`);
    const alert = main().getByRole('alert');
    await alert.getByText('Deepgram could not be reached: fetch failed', { exact: true }).waitFor();
    expect(
      await main()
        .getByText(/Deepgram could not be reached/)
        .count(),
    ).toBe(1);
    expect(await alert.getByText('Transcription failed', { exact: true }).count()).toBe(1);
    expect(await main().getByRole('button', { name: 'Generate Summary' }).count()).toBe(0);
    await shot('5-failed-transcription');
    await alert.getByRole('button', { name: 'Delete session' }).click();
    await page
      .getByRole('dialog', { name: 'Delete Session' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.waitForURL((url) => url.pathname === '/');
    const gone = await fetch(`${system.url}/api/transcripts/${row!.id}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(gone.status).toBe(404);
    expect(errors).toEqual([]);
  });

  it('offers to retry a failed transcription whose recording is kept, and then shows its lines', async () => {
    deepgram.failures.push({ status: 401, message: 'Invalid credentials.' });
    const form = new FormData();
    form.set('name', 'Recording of the Feywild');
    form.set('session_date', '2026-03-02T00:00:00.000Z');
    form.set('audio', new Blob([wav(3000)], { type: 'audio/wav' }), 'feywild.wav');
    const upload = await fetch(`${system.url}/api/transcripts/manual-audio`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: form,
    });
    expect(upload.status).toBe(200);
    const { id } = (await upload.json()) as Created;

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/sessions/${id}`);
    const alert = main().getByRole('alert');
    await alert.getByText('Deepgram answered 401: Invalid credentials.', { exact: true }).waitFor();
    await alert.getByText(/The recording is still stored/).waitFor();
    await shot('5-failed-transcription-retry');
    await alert.getByRole('button', { name: 'Retry transcription' }).click();
    await page.getByText('Transcription queued again').waitFor();
    // The Deepgram peer's transcript: speaker lines with their times.
    await main().getByText('Welcome back to the table, everyone.').first().waitFor({ timeout: 20_000 });
    expect(await main().getByRole('alert').count()).toBe(0);
    await shot('5-retried-transcription');
    expect(errors).toEqual([]);
  });
});
