import type { Browser, Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guildIdForShard, type PeerGuild } from '../peers/discord.ts';
import {
  expectFitsPhone,
  launchBrowser,
  pageScrollWidth,
  signInWithDiscordBrowser,
} from '../support/browser.ts';
import { startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const SHOTS = '/tmp/shots-discord-server-pickers';

// With the bot in the server, its settings page offers the channels and roles by name (the
// bot describes the server through the shared cache): no id typed by hand.
describe('Discord server settings with the bot in the server', () => {
  let rig: VoiceRig;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 41),
    name: 'Whitestone Table',
    ownerId: '5701',
    channels: [
      { id: '9701', name: 'table-talk', type: 0 },
      { id: '9702', name: 'session-notes', type: 0 },
      { id: '9703', name: 'Tavern', type: 2 },
      { id: '9704', name: 'Stage', type: 2 },
    ],
    members: [{ id: '5701', username: 'matt', nick: 'Matt' }],
    roles: [
      { id: '8701', name: 'Game Master' },
      { id: '8702', name: 'Players' },
    ],
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // The browser follows Discord's redirect back to PUBLIC_URL: this system's own address.
    rig = await startVoiceRig(guild, { SUMMARY_AUTOMATIC: 'false' }, { processes: 'one', browser: true });
    rig.oauth.discordGuilds.set('5701', [{ id: guild.id, name: guild.name, owner: true, permissions: '0' }]);
    browser = await launchBrowser();
    ({ page, errors } = await signInWithDiscordBrowser(browser, rig.system.url, rig.oauth, {
      id: '5701',
      username: 'matt',
    }));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await rig?.stop();
  });

  const form = () => page.getByRole('form', { name: `Settings of ${guild.name}` });
  const optionTexts = (select: ReturnType<Page['getByLabel']>) => select.locator('option').allTextContents();

  it('picks the announcement channel, the starter roles and an auto-record channel by name; a reload shows them', async () => {
    await page.goto(`/discord-servers/${guild.id}`);
    const announcement = form().getByLabel('Announcement channel', { exact: true });
    await announcement.waitFor();
    expect(await optionTexts(announcement)).toEqual(['Where /start runs', '#table-talk', '#session-notes']);
    await announcement.selectOption({ label: '#session-notes' });
    const roles = form().getByRole('group', { name: 'Roles that may start recordings' });
    expect(await roles.getByRole('checkbox').count()).toBe(2);
    await roles.getByLabel('Game Master').check();
    await form().getByRole('button', { name: 'Add a rule' }).click();
    const channel = form().getByRole('group', { name: 'Rule 1' }).getByLabel('Voice channel');
    expect(await optionTexts(channel)).toEqual(['Choose a channel', 'Tavern', 'Stage']);
    // Saved before its channel is chosen: said in words, nothing sent.
    await form().getByRole('button', { name: 'Save settings' }).click();
    expect(await form().getByRole('alert').textContent()).toBe('Choose the voice channel of rule 1.');
    await channel.selectOption({ label: 'Stage' });
    await page.screenshot({ path: `${SHOTS}/pickers-desktop.png`, fullPage: true });
    await form().getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Server settings saved').waitFor();

    // Read back on a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await announcement.waitFor();
    expect(await announcement.inputValue()).toBe('9702');
    expect(await roles.getByLabel('Game Master').isChecked()).toBe(true);
    expect(await roles.getByLabel('Players').isChecked()).toBe(false);
    expect(await channel.inputValue()).toBe('9704');
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);
    // The channel picker and the save button are whole on the screen.
    for (const control of [channel, form().getByRole('button', { name: 'Save settings' })]) {
      const box = (await control.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await page.screenshot({ path: `${SHOTS}/pickers-phone.png`, fullPage: true });
    expect(errors).toEqual([]);
  });
});
