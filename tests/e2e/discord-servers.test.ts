import type { Browser, Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthPeer, type OAuthPeer } from '../peers/oauth.ts';
import { expectFitsPhone, launchBrowser, newPage, pageScrollWidth, storedToken } from '../support/browser.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-discord-servers';
const OWNED = '1100000000000000001';
const MEMBER_ONLY = '1100000000000000002';

// The server owner's page: signed in with Discord, whose guild list (scope `guilds`) says which
// servers they manage; the page lists those, edits one's settings, and the save survives a reload.
describe('Discord servers page', () => {
  let peer: OAuthPeer;
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    peer = await startOAuthPeer();
    peer.discordUser = {
      ...peer.discordUser,
      id: '515151515151515151',
      username: 'matt',
      global_name: 'Matt',
    };
    peer.discordGuilds.set('515151515151515151', [
      { id: OWNED, name: 'Critical Role', owner: true, permissions: '0' },
      { id: MEMBER_ONLY, name: 'Friends of Tal’Dorei', permissions: String(1n << 10n) },
    ]);
    system = await startSystem({
      mode: 'embedded',
      env: { ...peer.env('discord'), SUMMARY_AUTOMATIC: 'false' },
    });
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    await page.goto('/login');
    await page.getByRole('button', { name: 'Login with Discord' }).click();
    await page.waitForURL('**/welcome');
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await peer?.close();
  });

  const main = () => page.locator('#main-content');
  const form = () => main().getByRole('form', { name: 'Settings of Critical Role' });

  it('lists the servers the user manages, edits one, and a reload shows what was saved', async () => {
    await page.getByRole('link', { name: 'Discord servers' }).click();
    await page.waitForURL('**/discord-servers');
    const list = main().getByRole('navigation', { name: 'Your Discord servers' });
    await list.getByRole('link', { name: 'Critical Role' }).waitFor();
    expect(await list.getByRole('link').allTextContents()).toEqual(['Critical Role']);
    await page.screenshot({ path: `${SHOTS}/list-desktop.png`, fullPage: true });

    await list.getByRole('link', { name: 'Critical Role' }).click();
    await page.waitForURL(`**/discord-servers/${OWNED}`);
    await form().getByLabel('Who is recorded').selectOption('opt_in');
    await form().getByLabel('Transcription language').fill('de');
    await form().getByRole('button', { name: 'Add a rule' }).click();
    const rule = form().getByRole('group', { name: 'Rule 1' });
    await rule.getByLabel('Voice channel id').fill('2222222222');
    await rule.getByLabel('At least members').fill('4');
    await rule.getByLabel('Time zone').fill('Europe/Berlin');
    await rule.getByLabel('From (HH:MM)').fill('19:00');
    await rule.getByLabel('Until (HH:MM)').fill('23:30');
    await page.screenshot({ path: `${SHOTS}/edit-desktop.png`, fullPage: true });
    await form().getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Server settings saved').waitFor();

    await page.reload();
    await form().waitFor();
    expect(await form().getByLabel('Who is recorded').inputValue()).toBe('opt_in');
    expect(await form().getByLabel('Transcription language').inputValue()).toBe('de');
    const saved = form().getByRole('group', { name: 'Rule 1' });
    expect(await saved.getByLabel('Voice channel id').inputValue()).toBe('2222222222');
    expect(await saved.getByLabel('At least members').inputValue()).toBe('4');
    expect(await saved.getByLabel('From (HH:MM)').inputValue()).toBe('19:00');
    expect(await saved.getByLabel('Time zone').inputValue()).toBe('Europe/Berlin');

    // What the API stored is what the page showed.
    const token = await storedToken(page);
    const res = await fetch(`${system.url}/api/discord/servers/${OWNED}/settings`, {
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    });
    if (token) {
      expect(((await res.json()) as { consent_mode: string }).consent_mode).toBe('opt_in');
    }
    expect(errors).toEqual([]);
  });

  it('shows a refusal from the server and keeps the stored settings', async () => {
    await page.goto(`/discord-servers/${OWNED}`);
    const rule = form().getByRole('group', { name: 'Rule 1' });
    await rule.getByLabel('Time zone').fill('Mars/Olympus');
    await form().getByRole('button', { name: 'Save settings' }).click();
    await form().getByRole('alert').getByText('unknown time zone').waitFor();
    await page.reload();
    expect(await form().getByRole('group', { name: 'Rule 1' }).getByLabel('Time zone').inputValue()).toBe(
      'Europe/Berlin',
    );
  });

  it('says so for a server the user does not manage, and fits a phone', async () => {
    await page.goto(`/discord-servers/${MEMBER_ONLY}`);
    await main().getByText('That server is not one you manage.').waitFor();
    expect(await main().getByRole('form').count()).toBe(0);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/discord-servers/${OWNED}`);
    await form().waitFor();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);
    await page.screenshot({ path: `${SHOTS}/edit-phone.png`, fullPage: true });
  });
});
