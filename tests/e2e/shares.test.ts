import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { expectFitsPhone, launchBrowser, newPage, signInLocally, storedToken } from '../support/browser.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-shares';

describe('sharing a session with the players', () => {
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let sessionId = '';
  let groupId = '';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    system = await startSystem({ mode: 'embedded', env: { SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    await signInLocally(page, 'Matt');
    await page.waitForURL('**/welcome');
    const token = await storedToken(page);
    const api = <T>(method: string, path: string, body?: unknown) =>
      apiCall<T>(system.url, method, path, token, body).then((r) => r.body);
    groupId = (await api<{ id: string }>('POST', '/groups', { name: 'Exandria' })).id;
    sessionId = (
      await api<{ id: string }>('POST', '/transcripts/manual', {
        name: 'The Briarwoods',
        session_date: '2026-05-02',
        group_id: groupId,
        summary: 'The party reaches **Whitestone**.',
        transcript: '[00:00:05] MATT: You arrive at Whitestone.\n[00:01:10] LAURA: I ready my bow.',
      })
    ).id;
    await api('PUT', `/transcripts/${sessionId}/notes`, { content: 'GM ONLY: the Briarwoods serve Vecna' });
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('the owner makes a link; a fresh browser opens it signed out, read-only, without the notes; revoking ends it', async () => {
    await page.goto(`/sessions/${sessionId}`);
    await page.getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share session' });
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const url = await dialog.getByLabel('New link (shown once: copy it now)').inputValue();
    expect(url).toMatch(new RegExp(`^${system.url}/shared/[A-Za-z0-9_-]{43}$`));
    await expect.poll(() => dialog.getByRole('button', { name: 'Revoke' }).count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}/dialog-desktop.png` });

    // A player: a new context, no storage, never signed in.
    const player = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const playerPage = await player.newPage();
    const playerErrors: Error[] = [];
    playerPage.on('pageerror', (err) => playerErrors.push(err));
    await playerPage.goto(url);
    await playerPage.getByRole('heading', { name: 'The Briarwoods' }).waitFor();
    await playerPage.getByText('I ready my bow.').waitFor();
    expect(await playerPage.locator('strong', { hasText: 'Whitestone' }).count()).toBe(1);
    expect(await playerPage.content()).not.toContain('GM ONLY');
    expect(new URL(playerPage.url()).pathname).toMatch(/^\/shared\//);
    expect(await playerPage.getByRole('button', { name: /Edit|Delete|Share|Notes/ }).count()).toBe(0);
    await expectFitsPhone(playerPage);
    await playerPage.screenshot({ path: `${SHOTS}/shared-phone.png`, fullPage: true });
    await playerPage.setViewportSize({ width: 1280, height: 800 });
    await playerPage.screenshot({ path: `${SHOTS}/shared-desktop.png`, fullPage: true });

    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => dialog.getByText('No links yet.').count()).toBe(1);
    await playerPage.reload();
    await playerPage.getByRole('heading', { name: 'Link not available' }).waitFor();
    await player.close();
    expect(playerErrors).toEqual([]);
    expect(errors).toEqual([]);
  });

  for (const width of [1280, 390]) {
    it(`a signed-out player clicks a time in a shared summary and lands on that moment in the shared view (${width} px)`, async () => {
      const token = await storedToken(page);
      const api = <T>(method: string, path: string, body?: unknown) =>
        apiCall<T>(system.url, method, path, token, body).then((r) => r.body);
      // What the offline fallback writes: its marker, and moments linked to the owner's page.
      const summary = `<!-- chronicler:offline -->\n- "I ready my bow." (Laura) [[00:01:10]](/sessions/${sessionId}#t=00:01:10)`;
      await api('PUT', `/transcripts/${sessionId}/summary`, { summary });
      const share = await api<{ path: string; id: string }>('POST', `/transcripts/${sessionId}/shares`, {});
      const player = await browser.newContext({ viewport: { width, height: 844 } });
      const playerPage = await player.newPage();
      const playerErrors: Error[] = [];
      playerPage.on('pageerror', (err) => playerErrors.push(err));
      await playerPage.goto(`${system.url}${share.path}`);
      // The notice says what the text is, never the operator's setup.
      await playerPage.getByRole('note').getByText('Offline digest').waitFor();
      expect(await playerPage.content()).not.toMatch(/OPENAI_BASE_URL|README/);
      const time = playerPage.getByRole('link', { name: '[00:01:10]' });
      expect(await time.getAttribute('href')).toBe(`${share.path}#t=00:01:10`);
      await time.click();
      await playerPage.waitForURL(`**${share.path}#t=00:01:10`);
      const target = playerPage.locator('.is-target');
      await target.waitFor();
      expect(await target.textContent()).toContain('I ready my bow.');
      expect(await target.isVisible()).toBe(true);
      if (width === 390) await expectFitsPhone(playerPage);
      await playerPage.screenshot({ path: `${SHOTS}/moment-${width}.png`, fullPage: true });

      // Revoked: the page's own words, not the server's.
      await api('DELETE', `/transcripts/${sessionId}/shares/${share.id}`);
      await playerPage.reload();
      await playerPage.getByRole('heading', { name: 'Link not available' }).waitFor();
      await playerPage.getByText('it may have been revoked or have expired').waitFor();
      expect(await playerPage.content()).not.toContain('Share link not found');
      await playerPage.screenshot({ path: `${SHOTS}/revoked-${width}.png`, fullPage: true });
      await player.close();
      expect(playerErrors).toEqual([]);
    });
  }

  it("a campaign's link lists its sessions for a signed-out reader and opens each", async () => {
    await page.goto(`/groups/${groupId}`);
    await page.getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share campaign' });
    await dialog.getByLabel('Expires').selectOption('7');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const url = await dialog.getByLabel('New link (shown once: copy it now)').inputValue();
    await dialog
      .getByText(/expires/)
      .first()
      .waitFor();
    const player = await browser.newContext();
    const playerPage = await player.newPage();
    await playerPage.goto(url);
    await playerPage.getByRole('heading', { name: 'Exandria' }).waitFor();
    await playerPage.getByRole('link', { name: 'The Briarwoods' }).click();
    await playerPage.getByText('You arrive at Whitestone.').waitFor();
    await playerPage.screenshot({ path: `${SHOTS}/campaign-session-desktop.png`, fullPage: true });
    await player.close();
  });
});
