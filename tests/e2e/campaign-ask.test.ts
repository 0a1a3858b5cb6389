import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homeGameTranscript } from '../eval/home-game.ts';
import {
  expectFitsPhone,
  launchBrowser,
  newPage,
  pageScrollWidth,
  signInLocally,
  storedToken,
} from '../support/browser.ts';
import { crd3Transcript } from '../support/crd3.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-campaign-ask';

// A game master pastes two sessions into a campaign, asks it a question whose answer was said
// in the first one, and follows the cited moment into that session. Offline (no model).
describe('ask the campaign', () => {
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let groupId = '';
  const home = homeGameTranscript();

  beforeAll(async () => {
    system = await startSystem({ mode: 'embedded', env: { SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    await signInLocally(page, 'Hedda');
    await page.waitForURL('**/welcome');
    const res = await fetch(`${system.url}/api/groups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await storedToken(page)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'The Whisperwood' }),
    });
    groupId = ((await res.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  /** Pastes a session into the campaign through its 'Add Session' form. */
  async function paste(name: string, date: string, transcript: string) {
    await page.goto(`/groups/${groupId}/add-session`);
    await page.getByRole('heading', { name: 'Manually Add Session', level: 1 }).waitFor();
    await page.getByLabel('Session Name *').fill(name);
    await page.getByLabel('Session Date *').fill(date);
    await page.getByLabel('Session Transcript').fill(transcript);
    await page.getByRole('button', { name: 'Create Session' }).click();
    await page.waitForURL(`**/groups/${groupId}`);
  }

  it('answers from the first of two pasted sessions and opens the cited moment', async () => {
    await paste('The mill', '2026-03-01', home.transcript);
    await paste('Kraghammer', '2026-03-08', crd3Transcript('C1E001', { timed: true, maxChars: 20_000 }));
    const box = page.locator('section', { has: page.getByRole('heading', { name: 'Ask the Campaign' }) });
    const ask = box.getByRole('button', { name: 'Ask' });
    expect(await ask.isDisabled()).toBe(true);
    await box.getByLabel('Question').fill('Who is hunting the crown?');
    await ask.click();
    const cited = box.getByRole('link', { name: `The mill at ${home.times[48]}` });
    await cited.waitFor();
    // The answering line is quoted first, linked to its moment in the first session.
    const first = box.locator('.campaign-answer-text blockquote').first();
    expect(await first.textContent()).toContain('Grub sulks but says his boss, a hag named Mother Sallow');
    await page.screenshot({ path: `${SHOTS}/answer-desktop.png`, fullPage: true });

    await cited.click();
    await page.waitForURL(new RegExp(`/sessions/[^/#]+#t=${home.times[48]}$`));
    const target = page.locator('.transcript-line.is-target');
    await target.waitFor();
    expect(await target.textContent()).toContain('Grub sulks but says his boss');
    await expect.poll(() => target.isVisible()).toBe(true);
    await page.screenshot({ path: `${SHOTS}/moment-desktop.png` });
    expect(errors).toEqual([]);
  });

  it('says what is wrong with a question in words, and fits a phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/groups/${groupId}`);
    const box = page.locator('section', { has: page.getByRole('heading', { name: 'Ask the Campaign' }) });
    await box.getByLabel('Question').fill('x'.repeat(1_001));
    await box.getByText('Question cannot exceed 1,000 characters').waitFor();
    expect(await box.getByRole('button', { name: 'Ask' }).isDisabled()).toBe(true);
    await box.getByLabel('Question').fill('What is the mule called?');
    await box.getByRole('button', { name: 'Ask' }).click();
    await box
      .getByRole('link', { name: /^The mill at / })
      .first()
      .waitFor();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);
    await box.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/answer-phone.png` });
    expect(errors).toEqual([]);
  });
});

// The automatic check replaces a hand-edited campaign summary when a session changes (the
// specification's rule): the dashboard says so, keeps the text and restores it in one click.
describe('a hand-edited campaign summary replaced by the automatic check', () => {
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];

  beforeAll(async () => {
    system = await startSystem({ mode: 'embedded' });
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    await signInLocally(page, 'Tobin');
    await page.waitForURL('**/welcome');
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('warns before the edit, says when it was replaced, and restores the text from its versions', async () => {
    const token = await storedToken(page);
    const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${system.url}/api${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(res.ok).toBe(true);
      return (await res.json()) as T;
    };
    const group = await api<{ id: string }>('POST', '/groups', { name: 'Millbrook' });
    const session = (name: string, date: string, summary: string) =>
      api('POST', '/transcripts/manual', { name, session_date: date, summary, group_id: group.id });
    await session('The mill', '2026-03-01T19:00:00Z', 'Hedda Vorn asks the party to find her son Tobin.');

    // Opening the dashboard generates the first campaign summary.
    await page.goto(`/groups/${group.id}`);
    const summary = page.locator('section', { has: page.getByRole('heading', { name: 'Campaign Summary' }) });
    await summary.getByText('Hedda Vorn asks the party').first().waitFor();
    await summary.getByRole('button', { name: 'Edit' }).click();
    await summary
      .getByText(
        "When a session's summary changes, the automatic update replaces this text with a generated summary.",
      )
      .waitFor();
    await page.screenshot({ path: `${SHOTS}/edit-warning-desktop.png` });
    await summary.getByLabel('Campaign summary').fill('My own words: Tobin sleeps under a silver crown.');
    await summary.getByRole('button', { name: 'Save' }).click();
    await summary.getByText('My own words: Tobin sleeps under a silver crown.').waitFor();

    await session(
      'The barrow',
      '2026-03-08T19:00:00Z',
      'The party returns the crown to the Queen Under the Hill.',
    );
    await page.reload();
    await summary.getByText('The automatic update replaced your hand-edited summary.').waitFor();
    await summary.getByText('Queen Under the Hill').first().waitFor();
    await page.screenshot({ path: `${SHOTS}/replaced-desktop.png` });
    await summary.getByRole('button', { name: 'Restore my text' }).click();
    await summary.getByText('My own words: Tobin sleeps under a silver crown.').waitFor();

    await summary.getByRole('button', { name: /^Versions \(\d+\)$/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Earlier campaign summaries' });
    await dialog.getByText(/Generated, replaced by restoring an older version/).waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);
    await page.screenshot({ path: `${SHOTS}/versions-phone.png` });
    expect(errors).toEqual([]);
  });
});
