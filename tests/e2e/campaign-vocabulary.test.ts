import type { Browser, Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectFitsPhone,
  launchBrowser,
  newPage,
  pageScrollWidth,
  signInLocally,
} from '../support/browser.ts';
import { crd3Blurb, crd3Transcript } from '../support/crd3.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-vocabulary';

async function storedToken(page: Page): Promise<string> {
  const token = await page.evaluate(() =>
    // Runs in the page; the test project's TypeScript has no DOM types.
    (globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem(
      'auth_token',
    ),
  );
  return token ?? '';
}

describe('campaign vocabulary on the group dashboard', () => {
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let token: string;
  let groupId: string;

  const api = async <T>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${system.url}/api${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as T };
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    system = await startSystem({ mode: 'embedded', env: { SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    await signInLocally(page, 'Keyleth');
    await page.waitForURL('**/welcome');
    token = await storedToken(page);
    groupId = (await api<{ id: string }>('POST', '/groups', { name: 'Vox Machina' })).body.id;
    for (const episode of ['C1E001', 'C1E005'] as const) {
      const res = await api('POST', '/transcripts/manual', {
        name: `Episode ${episode}`,
        session_date: '2015-03-12T19:00:00Z',
        summary: crd3Blurb(episode),
        transcript: crd3Transcript(episode, { timed: true, maxChars: 60_000 }),
        group_id: groupId,
      });
      expect(res.status).toBe(200);
    }
    await api('PUT', `/groups/${groupId}/vocabulary`, { terms: ['Tal’Dorei'] });
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  const main = () => page.locator('#main-content');
  const section = () =>
    main().locator('section', { has: page.getByRole('heading', { name: 'Campaign Vocabulary' }) });
  const ownTerms = () =>
    section().getByRole('list', { name: 'Your terms' }).getByRole('listitem').locator('.chip-text');
  const storedTerms = async () =>
    (await api<{ terms: string[] }>('GET', `/groups/${groupId}/vocabulary`)).body.terms;
  const toggle = () => section().getByRole('button', { name: 'Campaign Vocabulary' });
  /** The section starts closed; opening it loads the vocabulary. */
  const openSection = async () => {
    expect(await toggle().getAttribute('aria-expanded')).toBe('false');
    expect(await section().getByRole('textbox', { name: 'Add a name' }).count()).toBe(0);
    await toggle().click();
    expect(await toggle().getAttribute('aria-expanded')).toBe('true');
  };
  const pageWidth = () => pageScrollWidth(page);

  it('shows the stored terms and the learned names, and saves edits with a toast', async () => {
    await page.goto(`/groups/${groupId}`);
    await openSection();
    await section().getByText('Names the live transcription should get right', { exact: false }).waitFor();
    const learned = section().getByRole('list', { name: 'Learned names' });
    await learned.waitFor();
    expect(await ownTerms().allTextContents()).toEqual(['Tal’Dorei']);
    const learnedNames = await learned.locator('.chip-text').allTextContents();
    for (const name of ['Grog', 'Scanlan', 'Pike', 'Kraghammer', "Vex'ahlia"])
      expect(learnedNames).toContain(name);
    expect(learnedNames).not.toContain('Okay');
    await page.screenshot({ path: `${SHOTS}/vocabulary-1280.png`, fullPage: true });

    // Add by typing + Enter; a repeat (in another case) is refused in place.
    const input = section().getByRole('textbox', { name: 'Add a name' });
    await input.fill('  Vex’ahlia ');
    await input.press('Enter');
    // The learned spelling with a straight apostrophe is the same name: it leaves the learned list.
    expect(await learned.locator('.chip-text').allTextContents()).not.toContain("Vex'ahlia");
    await input.fill('vex’ahlia');
    await input.press('Enter');
    await section().getByText('is already in your list.', { exact: false }).waitFor();
    expect(await input.inputValue()).toBe('vex’ahlia');
    await input.fill('Percival Fredrickstein von Musel Klossowski de Rolo the Third of Whitestone');
    await input.press('Enter');
    await section().getByText('A term cannot exceed 50 characters.').waitFor();
    await input.fill('');

    // Add a learned name with its chip: it leaves the learned list.
    await learned.getByRole('button', { name: 'Add Grog to your terms' }).click();
    expect(await learned.getByRole('button', { name: 'Add Grog to your terms' }).count()).toBe(0);
    // Remove a term with its chip's button.
    await section().getByRole('button', { name: 'Remove Tal’Dorei' }).click();
    expect(await ownTerms().allTextContents()).toEqual(['Vex’ahlia', 'Grog']);
    expect(await storedTerms()).toEqual(['Tal’Dorei']);

    await section().getByRole('button', { name: 'Save vocabulary' }).click();
    await page.getByText('Campaign vocabulary saved').waitFor();
    expect(await storedTerms()).toEqual(['Vex’ahlia', 'Grog']);
    expect(await section().getByRole('button', { name: 'Save vocabulary' }).isDisabled()).toBe(true);

    // After a reload the saved list is what shows.
    await page.reload();
    await openSection();
    await section().getByRole('list', { name: 'Your terms' }).waitFor();
    expect(await ownTerms().allTextContents()).toEqual(['Vex’ahlia', 'Grog']);
    expect(await pageWidth()).toBeLessThanOrEqual(1280);
    expect(errors).toEqual([]);
  });

  it("shows the server's refusal when a save fails, and keeps the edits", async () => {
    const doomed = (await api<{ id: string }>('POST', '/groups', { name: 'Doomed Expedition' })).body.id;
    await page.goto(`/groups/${doomed}`);
    await openSection();
    await section().getByText('No terms yet.', { exact: false }).waitFor();
    const input = section().getByRole('textbox', { name: 'Add a name' });
    await input.fill('Trinket');
    await input.press('Enter');
    // Deleted in another tab meanwhile: the save is refused and says why.
    expect((await api('DELETE', `/groups/${doomed}`)).status).toBe(200);
    await section().getByRole('button', { name: 'Save vocabulary' }).click();
    await section().getByRole('alert').getByText('Group not found').waitFor();
    await page.getByText('Failed to save the campaign vocabulary').waitFor();
    expect(await ownTerms().allTextContents()).toEqual(['Trinket']);
    expect(await section().getByRole('button', { name: 'Save vocabulary' }).isEnabled()).toBe(true);
  });

  it('fits a 390 px wide phone without sideways scrolling or a control cut off, and collapses', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/groups/${groupId}`);
    await openSection();
    await section().getByRole('list', { name: 'Learned names' }).waitFor();
    expect(await pageWidth()).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);
    // The field to add a name and its button are whole on the screen.
    for (const control of [
      section().getByRole('textbox', { name: 'Add a name' }),
      section().getByRole('button', { name: 'Save vocabulary' }),
    ]) {
      const box = (await control.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await section().scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/vocabulary-390.png`, fullPage: true });
    await toggle().click();
    expect(await toggle().getAttribute('aria-expanded')).toBe('false');
    expect(await section().getByRole('textbox', { name: 'Add a name' }).isVisible()).toBe(false);
    expect(errors).toEqual([]);
  });
});
