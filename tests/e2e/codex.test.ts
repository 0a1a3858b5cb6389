import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import {
  expectFitsPhone,
  launchBrowser,
  newPage,
  pageScrollWidth,
  signInLocally,
  storedToken,
} from '../support/browser.ts';
import { CAMPAIGN_LINKS, SESSION_ONE, SESSION_TWO } from '../support/codex-campaign.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-codex';

// A game master pastes two sessions, finds their people and places in the codex, merges two
// entries that are one person, opens a mention at its moment, reads a character's story, and
// shares "previously on" with a player who reads it signed out.
describe('the campaign codex in the browser', () => {
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let groupId = '';
  /** The session-list requests (GET /api/transcripts?...) the pages made. */
  const lists: URL[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    system = await startSystem({ mode: 'embedded' });
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (url.pathname === '/api/transcripts') lists.push(url);
    });
    await signInLocally(page, 'Matt');
    await page.waitForURL('**/welcome');
    const token = await storedToken(page);
    groupId = (
      await apiCall<{ id: string }>(system.url, 'POST', '/groups', token, { name: 'The Silver Crown' })
    ).body.id;
    await apiCall(system.url, 'PUT', `/groups/${groupId}/characters`, token, { links: CAMPAIGN_LINKS });
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('builds the codex from two pasted sessions, merges, asks the campaign, opens moments, tells a story, shares "previously on"', async () => {
    for (const [i, transcript] of [SESSION_ONE, SESSION_TWO].entries()) {
      await page.goto(`/groups/${groupId}/add-session`);
      await page.getByLabel('Session Name *').fill(`Session ${i + 1}`);
      await page.getByLabel('Session Date *').fill(`2026-0${i + 1}-10`);
      await page.getByLabel('Session Transcript').fill(transcript);
      await page.getByRole('button', { name: 'Create Session' }).click();
      await page.waitForURL(`**/groups/${groupId}`);
    }
    await page.getByRole('link', { name: 'Open Codex' }).click();
    await page.waitForURL(`**/groups/${groupId}/codex`);
    const card = (name: string) =>
      page.locator('.codex-entry', { has: page.getByRole('heading', { name, exact: true }) });
    await card('Oskar Brandt').waitFor({ timeout: 60_000 });
    await page.getByText(/2 sessions read/).waitFor({ timeout: 60_000 });
    expect(await card('Millbrook').getByText('Place').count()).toBe(1);
    // The party is apart; a spell is no one.
    await page.locator('.codex-party').getByText('Kestrel').waitFor();
    expect(await page.locator('.codex-list').getByText('Guiding Bolt').count()).toBe(0);

    // Browse by kind and search.
    await page.getByRole('tab', { name: /^Places/ }).click();
    expect(await card('Oskar Brandt').count()).toBe(0);
    await page.getByRole('tab', { name: /^All/ }).click();
    await page.getByRole('searchbox', { name: 'Search the codex' }).fill('archiv');
    await card('Ilse').waitFor();
    await page.getByRole('searchbox', { name: 'Search the codex' }).fill('');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: `${SHOTS}/codex-desktop.png`, fullPage: true });

    // Marr and Ilse are one archivist: merged into Ilse.
    await page.getByLabel('Select Marr to merge').check();
    await page.getByLabel('Select Ilse to merge').check();
    const merge = page.getByRole('region', { name: 'Merge entries' });
    await merge.getByLabel(/Merge 2 entries into/).selectOption({ label: 'Ilse' });
    await merge.getByRole('button', { name: 'Merge' }).click();
    await page.getByText('Merged into Ilse').waitFor();
    await expect.poll(() => card('Marr').count()).toBe(0);
    await card('Ilse').getByText('Also: Marr').waitFor();

    // Ask the campaign: the answer is in the first session; its cited moment opens there.
    await page.goto(`/groups/${groupId}`);
    const box = page.locator('section', { has: page.getByRole('heading', { name: 'Ask the Campaign' }) });
    await box.getByLabel('Question').fill('Who got the hunting horn?');
    await box.getByRole('button', { name: 'Ask' }).click();
    const cited = box.getByRole('link', { name: /^Session 1 at \d\d:\d\d:\d\d$/ }).first();
    await cited.waitFor({ timeout: 30_000 });
    const quoted = box.locator('.campaign-answer-text blockquote').first();
    expect(await quoted.textContent()).toContain('She gives Kestrel her late husband');
    const citedHref = (await cited.getAttribute('href'))!;
    await cited.click();
    await page.waitForURL(`**${citedHref}`);
    const answered = page.locator('.transcript-line.is-target');
    await answered.waitFor();
    expect(await answered.textContent()).toContain('hunting horn');
    await page.goto(`/groups/${groupId}/codex`);

    // Mark a secret, then open one of Oskar's moments in his session.
    // "Mother" may be read as her title (the entry is then Sallow, as the integration test allows).
    const sallow = page.locator('.codex-entry', {
      has: page.getByRole('heading', { name: /^(Mother )?Sallow$/ }),
    });
    await sallow.getByRole('button', { name: 'Mark secret' }).click();
    await sallow.getByText('Secret').waitFor();
    const mention = card('Oskar Brandt')
      .getByRole('link', { name: /^Session 2 · 00:/ })
      .first();
    const href = (await mention.getAttribute('href'))!;
    await mention.click();
    await page.waitForURL(`**${href}`);
    const target = page.locator('.transcript-line.is-target');
    await target.waitFor();
    expect(await target.textContent()).toContain('Oskar');
    // The mentions' session names came from the campaign's own list; no screen read the whole
    // library (any list of it asked is one first page, `limit=` without `after=`).
    expect(lists.some((u) => u.searchParams.get('group_id') === groupId)).toBe(true);
    const wholeLibrary = (u: URL) =>
      !u.searchParams.has('group_id') && (!u.searchParams.has('limit') || u.searchParams.has('after'));
    expect(lists.filter(wholeLibrary).map(String)).toEqual([]);

    // Kestrel's story: the archive, not Bryn's harbour scene.
    await page.goto(`/groups/${groupId}/codex`);
    await page.getByLabel('Character recap').selectOption('Kestrel');
    const story = page.locator('.codex-story');
    await story.getByText(/Kestrel searches the shelves/).waitFor({ timeout: 30_000 });
    expect(await story.textContent()).not.toMatch(/Oskar|harbour/);

    // "Previously on", shared: a player opens it signed out, with no secret in it.
    await page.locator('.codex-previously').getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share "previously on"' });
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const url = await dialog.getByLabel('New link (shown once: copy it now)').inputValue();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}/codex-phone.png`, fullPage: true });
    await page.locator('.codex-tools').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/codex-phone-list.png` });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);

    const player = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const playerPage = await player.newPage();
    const playerErrors: Error[] = [];
    playerPage.on('pageerror', (err) => playerErrors.push(err));
    await playerPage.goto(url);
    await playerPage.getByRole('heading', { name: 'Previously on…' }).waitFor();
    await playerPage.getByText('Previously on The Silver Crown').waitFor();
    expect(await playerPage.content()).not.toContain('Sallow');
    // The player is told what an offline digest is, not how to set up the app.
    expect(await playerPage.locator('.offline-notice').innerText()).not.toMatch(/OPENAI|README/);
    await playerPage.screenshot({ path: `${SHOTS}/previously-phone.png`, fullPage: true });
    // Its moments open the session through the link, signed out.
    const moment = playerPage.locator('a[href*="/shared/"][href*="#t="]').first();
    await moment.click();
    await playerPage.locator('.transcript-line.is-target').waitFor();
    expect(new URL(playerPage.url()).pathname).toMatch(/^\/shared\//);
    await player.close();
    expect(playerErrors).toEqual([]);
    expect(errors).toEqual([]);
  });
});
