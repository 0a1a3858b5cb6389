import { formatTranscriptLine } from '@chronicler/contracts';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { expectFitsPhone, launchBrowser, newPage, signInLocally, storedToken } from '../support/browser.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-search';

/** A long session: the word looked for is said once, far down, at 01:15:00. */
function longTranscript(): string {
  const lines: string[] = [];
  for (let i = 0; i < 400; i++) {
    const seconds = i * 15;
    const text = seconds === 4500 ? 'The ferry to Glintshore leaves at dawn.' : `We keep walking, step ${i}.`;
    lines.push(formatTranscriptLine({ seconds, speaker: i % 2 ? 'LAURA' : 'MATT', text }));
  }
  return lines.join('\n');
}

describe('search across sessions in the browser', () => {
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let dragonSession = '';
  let vaultSession = '';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    system = await startSystem({ mode: 'embedded', env: { SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    await signInLocally(page, 'Vex');
    await page.waitForURL('**/welcome');
    const token = await storedToken(page);
    const api = <T>(method: string, path: string, body?: unknown) =>
      apiCall<T>(system.url, method, path, token, body).then((r) => r.body);
    const dragons = await api<{ id: string }>('POST', '/groups', { name: 'Dragon Campaign' });
    const heist = await api<{ id: string }>('POST', '/groups', { name: 'Heist Campaign' });
    dragonSession = (
      await api<{ id: string }>('POST', '/transcripts/manual', {
        name: 'Road to the coast',
        session_date: '2026-03-01',
        group_id: dragons.id,
        summary: 'A long walk to the sea, told at length before the transcript.\n'.repeat(20),
        transcript: longTranscript(),
      })
    ).id;
    vaultSession = (
      await api<{ id: string }>('POST', '/transcripts/manual', {
        name: 'Vault job',
        session_date: '2026-03-08',
        group_id: heist.id,
        transcript: '[00:00:10] SAM: I pick the lock.',
      })
    ).id;
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  const sidebar = () => page.getByRole('complementary', { name: 'Sidebar' });

  it("finds a word said in another group's session from the sidebar and opens its moment, highlighted", async () => {
    // The reader is in the other campaign's session; back to the groups view to search everything.
    await page.goto(`/sessions/${vaultSession}`);
    await page.locator('main').getByText('I pick the lock.').waitFor();
    await sidebar().getByRole('button', { name: 'Back to Groups' }).click();
    await sidebar().getByRole('searchbox').fill('glintshore');
    const hit = sidebar().getByRole('link', { name: /^01:15:00 · Road to the coast/ });
    await hit.waitFor();
    expect(await hit.locator('mark').allTextContents()).toEqual(['Glintshore']);
    await page.screenshot({ path: `${SHOTS}/sidebar-desktop.png` });
    await hit.click();
    await page.waitForURL(`**/sessions/${dragonSession}#t=01:15:00`);
    const target = page.locator('.transcript-line.is-target');
    await target.waitFor();
    expect(await target.textContent()).toContain('The ferry to Glintshore leaves at dawn.');
    // In the window, not only inside the transcript's box (the summary above it is long).
    await expect.poll(() => target.isVisible()).toBe(true);
    const box = await target.boundingBox();
    expect(box && box.y >= 0 && box.y + box.height <= 800).toBe(true);
    await page.screenshot({ path: `${SHOTS}/moment-desktop.png` });
    expect(errors).toEqual([]);
  });

  it("inside a group the sidebar searches that group's sessions, and every session is one click away", async () => {
    await page.goto(`/sessions/${vaultSession}`);
    await page.locator('main').getByText('I pick the lock.').waitFor();
    await sidebar().getByRole('searchbox').fill('glintshore');
    await sidebar().getByText('Nothing said matches.').waitFor();
    await sidebar().getByRole('link', { name: 'Search every session' }).click();
    await page.waitForURL('**/search?q=glintshore');
    await page.locator('main').getByRole('link', { name: 'Road to the coast' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('Enter in the sidebar lists every hit grouped by session, each linking to its moment', async () => {
    await page.goto('/');
    const box = sidebar().getByRole('searchbox');
    await box.fill('lock OR glintshore');
    await box.press('Enter');
    await page.waitForURL('**/search?q=lock+OR+glintshore');
    const sessions = page.locator('.search-session');
    await expect.poll(() => sessions.count()).toBe(2);
    expect(await sessions.locator('.search-session-title').allTextContents()).toEqual(
      expect.arrayContaining(['Road to the coast', 'Vault job']),
    );
    await page.screenshot({ path: `${SHOTS}/results-desktop.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await expectFitsPhone(page);
    await page.screenshot({ path: `${SHOTS}/results-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page
      .locator('main')
      .getByRole('link', { name: /00:00:10/ })
      .click();
    await page.waitForURL(`**/sessions/${vaultSession}#t=00:00:10`);
    await page.locator('.transcript-line.is-target').getByText('I pick the lock.').waitFor();
    expect(errors).toEqual([]);
  });
});
