import { existsSync, mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VoiceTable } from '../peers/discord-voice/table.ts';
import { guildIdForShard, type PeerGuild } from '../peers/discord.ts';
import { expectFitsPhone, launchBrowser, signInWithDiscordBrowser } from '../support/browser.ts';
import type { TestSystem } from '../support/system.ts';
import { keptTracks, recordSession, seatTable, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const SHOTS = '/tmp/shots-my-data';
const hasEspeak = existsSync('/usr/bin/espeak-ng');

// A member recorded in someone else's session (two members speaking through real
// @discordjs/voice clients) signs in with Discord, sees their own lines only, and deletes them;
// the session's owner then reads the placeholder in their place.
describe.runIf(hasEspeak)("a member's recorded data page", () => {
  let rig: VoiceRig;
  let system: TestSystem;
  let table: VoiceTable;
  let browser: Browser;
  let tid = '';
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 36),
    name: 'Privacy Page Table',
    ownerId: '5601',
    channels: [
      { id: '9601', name: 'table-talk', type: 0 },
      { id: '9602', name: 'Tavern', type: 2 },
    ],
    members: [
      { id: '5601', username: 'matt', nick: 'Matt' },
      { id: '5602', username: 'laura', nick: 'Laura' },
    ],
  };
  const matt = { key: '5601', displayName: 'Matt', userId: '5601' };
  const laura = { key: '5602', displayName: 'Laura', userId: '5602' };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // The browser follows Discord's redirect back to PUBLIC_URL: this system's own address.
    rig = await startVoiceRig(guild, { SUMMARY_AUTOMATIC: 'false' }, { processes: 'one', browser: true });
    ({ system } = rig);
    browser = await launchBrowser();
    table = await seatTable(rig, guild.id, '9602', ['5601', '5602']);
    const turns = [
      { speaker: matt, text: 'The lanterns flicker in the hall' },
      { speaker: laura, text: 'Vex listens at the door' },
    ];
    ({ tid } = await recordSession(rig, table, {
      guildId: guild.id,
      textChannelId: '9601',
      by: '5601',
      turns,
      pauseSeconds: 2,
    }));
    await keptTracks(rig, tid, 2);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await table?.close();
    await rig?.stop();
  });

  it('lists the session with only her lines, deletes them after a confirmation, and the owner reads the placeholder', async () => {
    let page: Page;
    let errors: Error[];
    ({ page, errors } = await signInWithDiscordBrowser(browser, system.url, rig.oauth, {
      id: '5602',
      username: 'laura',
    }));
    await page.getByRole('link', { name: 'My recorded data' }).click();
    await page.waitForURL('**/my-data');
    const card = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Live Transcription' }) });
    await card.waitFor();
    const lines = card.getByRole('list', { name: 'Your lines' });
    await expect.poll(() => lines.textContent()).toContain('Vex listens at the door');
    expect(await lines.textContent()).not.toContain('lanterns');
    expect(await card.textContent()).toContain('your voice track is kept');
    await page.screenshot({ path: `${SHOTS}/list-desktop.png` });

    // Asked first; Cancel keeps everything.
    await card.getByRole('button', { name: 'Delete my data from this session' }).click();
    await card.getByRole('button', { name: 'Cancel' }).click();
    expect(await lines.textContent()).toContain('Vex listens');

    await card.getByRole('button', { name: 'Delete my data from this session' }).click();
    await card.getByRole('button', { name: 'Yes, delete my data' }).click();
    await page.getByText('Nothing of yours is kept from any recording.').waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await expectFitsPhone(page);
    await page.screenshot({ path: `${SHOTS}/empty-phone.png` });
    expect(errors).toEqual([]);
    await page.context().close();

    // The owner's viewer: her line reads the placeholder, his line as it was.
    ({ page, errors } = await signInWithDiscordBrowser(browser, system.url, rig.oauth, {
      id: '5601',
      username: 'matt',
    }));
    await page.goto(`/sessions/${tid}`);
    await page.locator('.transcript-line', { hasText: "[removed at the speaker's request]" }).waitFor();
    await page.locator('.transcript-line', { hasText: 'The lanterns flicker in the hall' }).waitFor();
    expect(await page.locator('.transcript-line', { hasText: 'Vex listens' }).count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/owner-viewer.png` });
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
