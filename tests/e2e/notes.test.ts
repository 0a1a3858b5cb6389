import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFitsPhone, launchBrowser, newPage, signInLocally } from '../support/browser.ts';
import { crd3Transcript } from '../support/crd3.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-forms';

const tokenOf = (page: Page) =>
  page.evaluate(() =>
    (globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem(
      'auth_token',
    ),
  );

/** The REST API as the signed-in page's user. */
function apiFor(system: TestSystem, page: Page) {
  return async <T>(method: string, p: string, body?: unknown): Promise<T> => {
    const token = await tokenOf(page);
    const res = await fetch(`${system.url}/api${p}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${p} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
}

async function signedIn(browser: Browser, system: TestSystem, name: string, width = 1280, height = 800) {
  const { page, errors } = await newPage(browser, system.url);
  await page.setViewportSize({ width, height });
  await signInLocally(page, name);
  await page.waitForURL('**/welcome');
  const api = apiFor(system, page);
  const createSession = async (sessionName: string) =>
    api<{ id: string }>('POST', '/transcripts/manual', {
      name: sessionName,
      session_date: '2026-03-01T05:00:00.000Z',
      transcript: crd3Transcript('C1E001', { timed: true, turns: 30 }),
    });
  const notesOf = async (id: string) =>
    (await api<{ content: string }>('GET', `/transcripts/${id}/notes`)).content;
  return { page, errors, api, createSession, notesOf };
}

describe('session notes (fresh embedded start)', () => {
  let system: TestSystem;
  let browser: Browser;
  beforeAll(async () => {
    // Sessions keep the summaries the test gives them (summaries.test.ts covers automatic ones).
    system = await startSystem({ mode: 'embedded', env: { SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('notes page: preview first, edit as markdown, save, and a failed save reloads the notes', async () => {
    const { page, errors, createSession, notesOf } = await signedIn(browser, system, 'Vex');
    const session = await createSession('Arrival at Kraghammer');

    await page.goto(`/sessions/${session.id}/notes`);
    await page.getByRole('heading', { name: 'Arrival at Kraghammer - Notes', level: 1 }).waitFor();
    const previewToggle = page.getByRole('button', { name: 'Preview' });
    const editToggle = page.getByRole('button', { name: 'Edit' });
    expect(await previewToggle.getAttribute('aria-pressed')).toBe('true');
    await page.getByText('No content to preview.').waitFor();

    await editToggle.click();
    const textarea = page.getByLabel('Notes', { exact: true });
    await textarea.fill('# Kraghammer\n\n- Meet **Lord Stonefell**\n- Find the missing miners');
    await previewToggle.click();
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByRole('heading', { name: 'Kraghammer', level: 1 }).waitFor();
    expect(await preview.locator('strong').textContent()).toBe('Lord Stonefell');
    expect(await preview.locator('li').count()).toBe(2);
    await page.screenshot({ path: `${SHOTS}/notes-page.png`, fullPage: true });

    // Saving shows 'Saving...' while the request is on its way.
    let releasePut: () => void = () => {};
    const putHeld = new Promise<void>((r) => (releasePut = r));
    await page.route('**/api/transcripts/*/notes', async (route) => {
      if (route.request().method() === 'PUT') await putHeld;
      await route.fallback();
    });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Saving...' }).waitFor();
    expect(await page.getByRole('button', { name: 'Saving...' }).isDisabled()).toBe(true);
    releasePut();
    await page.getByText('Notes saved successfully').waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).waitFor();
    await page.unroute('**/api/transcripts/*/notes');
    // One stored format for the page and the drawer: HTML (the page edits it as markdown).
    expect(await notesOf(session.id)).toBe(
      '<h1>Kraghammer</h1><ul><li>Meet <strong>Lord Stonefell</strong></li><li>Find the missing miners</li></ul>',
    );

    // A save that never reaches the server: an error toast, and the notes are asked for again.
    await editToggle.click();
    await textarea.fill('Lost in the tunnels');
    await page.route('**/api/transcripts/*/notes', (route) =>
      route.request().method() === 'PUT' ? route.abort('connectionrefused') : route.fallback(),
    );
    const refetch = page.waitForRequest(
      (r) => r.method() === 'GET' && r.url().endsWith(`/api/transcripts/${session.id}/notes`),
    );
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Failed to save notes').waitFor();
    await refetch;
    await page.unroute('**/api/transcripts/*/notes');
    // One stored format for the page and the drawer: HTML (the page edits it as markdown).
    expect(await notesOf(session.id)).toBe(
      '<h1>Kraghammer</h1><ul><li>Meet <strong>Lord Stonefell</strong></li><li>Find the missing miners</li></ul>',
    );

    // Back goes to the session.
    await page.getByRole('button', { name: /Back to Session/ }).click();
    await page.waitForURL((url) => url.pathname === `/sessions/${session.id}`);
    expect(errors).toEqual([]);
  });

  it('notes page: HTML notes render safely, rich-text blocks as plain text, bad ids', async () => {
    const { page, errors, api, createSession } = await signedIn(browser, system, 'Scanlan');
    const session = await createSession('The Briarwoods');
    await api('PUT', `/transcripts/${session.id}/notes`, {
      content:
        '<h2>Loot</h2><p>Gold: <strong>200</strong> and a <a href="javascript:globalThis.__xss=3">map</a></p>' +
        '<img src="/nothing.png" onerror="globalThis.__xss=1"><script>globalThis.__xss=2</script>',
    });
    await page.goto(`/sessions/${session.id}/notes`);
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByRole('heading', { name: 'Loot', level: 2 }).waitFor();
    expect(await preview.locator('strong').textContent()).toBe('200');
    expect(await preview.locator('img, script').count()).toBe(0);
    expect(await preview.locator('a[href^="javascript"]').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();

    await api('PUT', `/transcripts/${session.id}/notes`, {
      content: JSON.stringify({
        blocks: [
          { key: 'a', text: 'Percy has a list.', type: 'unstyled' },
          { key: 'b', text: '# not a heading', type: 'unstyled' },
        ],
        entityMap: {},
      }),
    });
    await page.reload();
    await preview.getByText('Percy has a list.').waitFor();
    expect(await preview.locator('.notes-plain-text').textContent()).toBe(
      'Percy has a list.\n# not a heading',
    );
    expect(await preview.locator('h1').count()).toBe(0);

    // Another user's (or no) session: no name to show, nothing to edit.
    await page.goto('/sessions/00000000-0000-4000-8000-000000000000/notes');
    await page.getByRole('heading', { name: 'Session Notes', level: 1 }).waitFor();
    await page.getByText('Session not found.').waitFor();
    await page.goto('/sessions/%20/notes');
    await page.getByText('Invalid session ID.').waitFor();
    expect(errors).toEqual([]);
  });

  it('notes drawer: loads notes, shows unsaved changes, saves by hand, auto-saves, saves on close', async () => {
    const { page, errors, api, createSession, notesOf } = await signedIn(browser, system, 'Keyleth');
    const session = await createSession('The Sunken Tomb');
    await api('PUT', `/transcripts/${session.id}/notes`, { content: 'Zahra owes us a favour.\nBring rope.' });

    await page.goto(`/sessions/${session.id}`);
    await page.getByRole('button', { name: 'Notes', exact: true }).click();
    const drawer = page.getByRole('dialog', { name: 'Session Notes' });
    await drawer.waitFor();
    const editor = drawer.locator('.ProseMirror');
    // Plain text notes arrive as paragraphs.
    await expect
      .poll(() => editor.locator('p').allTextContents())
      .toEqual(['Zahra owes us a favour.', 'Bring rope.']);
    const save = drawer.getByRole('button', { name: 'Save' });
    expect(await save.isDisabled()).toBe(true);
    expect(await drawer.getByText('Unsaved changes').count()).toBe(0);

    // A manual save: the label, then the toast, and HTML stored.
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Vax keeps the key.');
    await drawer.getByText('Unsaved changes').waitFor();
    expect(await save.isDisabled()).toBe(false);
    await page.screenshot({ path: `${SHOTS}/notes-drawer.png` });
    await save.click();
    await page.getByText('Notes saved successfully').waitFor();
    // Toasts pause while hovered, and this one sits over the drawer's header: move away.
    await page.mouse.move(200, 600);
    await drawer.getByText('Unsaved changes').waitFor({ state: 'detached' });
    expect(await save.isDisabled()).toBe(true);
    expect(await notesOf(session.id)).toBe(
      '<p>Zahra owes us a favour.</p><p>Bring rope.</p><p>Vax keeps the key.</p>',
    );
    await page.getByText('Notes saved successfully').waitFor({ state: 'detached' });

    // Auto-save: no click, no toast; the label clears once it is stored.
    await page.keyboard.press('Enter');
    await page.keyboard.type('Auto-saved line.');
    await drawer.getByText('Unsaved changes').waitFor();
    await drawer.getByText('Unsaved changes').waitFor({ state: 'detached', timeout: 10_000 });
    expect(await notesOf(session.id)).toContain('<p>Auto-saved line.</p>');
    expect(await page.getByText('Notes saved successfully').count()).toBe(0);

    // Escape right after typing: the edit is saved before the drawer goes.
    await page.keyboard.press('Enter');
    await page.keyboard.type('Written just before closing.');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
    await expect.poll(() => notesOf(session.id)).toContain('<p>Written just before closing.</p>');

    // The notes page shows what the drawer wrote.
    await page.goto(`/sessions/${session.id}/notes`);
    await page.getByRole('region', { name: 'Preview' }).getByText('Written just before closing.').waitFor();
    expect(errors).toEqual([]);
  });

  it('notes drawer: an empty session shows the placeholder; looks right on a phone', async () => {
    const { page, errors, createSession } = await signedIn(browser, system, 'Pike', 390, 844);
    const session = await createSession('Trinket Goes Missing');
    await page.goto(`/sessions/${session.id}`);
    await page.getByRole('button', { name: 'Notes', exact: true }).click();
    const drawer = page.getByRole('dialog', { name: 'Session Notes' });
    await drawer.locator('[data-placeholder="Start writing your session notes..."]').waitFor();
    await expectFitsPhone(page);
    await page.screenshot({ path: `${SHOTS}/notes-drawer-mobile.png` });
    await drawer.getByRole('button', { name: 'Close notes' }).click();
    await drawer.waitFor({ state: 'detached' });

    await page.goto(`/sessions/${session.id}/notes`);
    await page.getByText('No content to preview.').waitFor();
    await expectFitsPhone(page);
    await page.screenshot({ path: `${SHOTS}/notes-page-mobile.png`, fullPage: true });
    expect(errors).toEqual([]);
  });
});
