import { existsSync, mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VoiceTable } from '../peers/discord-voice/table.ts';
import { guildIdForShard, type PeerGuild } from '../peers/discord.ts';
import { expectFitsPhone, launchBrowser, newPage } from '../support/browser.ts';
import type { TestSystem } from '../support/system.ts';
import { keptTracks, recordSession, seatTable, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const SHOTS = '/tmp/shots-bot-audio';
const hasEspeak = existsSync('/usr/bin/espeak-ng');

interface AudioState {
  currentTime: number;
  src: string;
}

// A session the voice bot recorded (two members speaking through real @discordjs/voice
// clients): the viewer's player offers each speaker's track, and a line's time plays that
// line's speaker's track from there.
describe.runIf(hasEspeak)("the viewer plays a bot session's speaker tracks", () => {
  let rig: VoiceRig;
  let system: TestSystem;
  let table: VoiceTable;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let tid = '';
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 34),
    name: 'Player Table',
    ownerId: '5001',
    channels: [
      { id: '9001', name: 'table-talk', type: 0 },
      { id: '9002', name: 'Tavern', type: 2 },
    ],
    members: [
      { id: '5001', username: 'matt', nick: 'Matt' },
      { id: '5002', username: 'laura', nick: 'Laura' },
    ],
  };
  const matt = { key: '5001', displayName: 'Matt', userId: '5001' };
  const laura = { key: '5002', displayName: 'Laura', userId: '5002' };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // The browser follows Discord's redirect back to PUBLIC_URL: this system's own address.
    rig = await startVoiceRig(guild, { SUMMARY_AUTOMATIC: 'false' }, { processes: 'one', browser: true });
    ({ system } = rig);
    // The OAuth peer answers as the guild's owner: the browser signs in as them.
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    await page.goto('/login');
    await page.getByRole('button', { name: 'Login with Discord' }).click();
    await page.waitForURL('**/welcome');

    table = await seatTable(rig, guild.id, '9002', ['5001', '5002']);
    const turns = [
      { speaker: matt, text: 'The lanterns flicker in the hall' },
      { speaker: laura, text: 'Vex listens at the door' },
    ];
    ({ tid } = await recordSession(rig, table, {
      guildId: guild.id,
      textChannelId: '9001',
      by: '5001',
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

  it("offers each speaker's track, and a line's time plays that speaker's track from the line", async () => {
    await page.goto(`/sessions/${tid}`);
    const choice = page.getByLabel('Speaker track');
    await choice.waitFor();
    expect(await choice.locator('option').allTextContents()).toEqual(['Laura', 'Matt']);
    const audio = page.locator('audio.session-audio-player');
    const state = () =>
      audio.evaluate((el) => {
        const a = el as unknown as AudioState;
        return { currentTime: a.currentTime, src: a.src };
      });
    // The owner picks Matt's track.
    await choice.selectOption({ label: 'Matt' });
    await expect.poll(async () => (await state()).src).toContain('speaker=Matt');
    await page.screenshot({ path: `${SHOTS}/tracks-desktop.png` });

    // Laura's line: her track, from her line's time (track time is session time).
    const lauraLine = page.locator('.transcript-line', { hasText: 'Vex listens at the door' });
    const button = lauraLine.getByRole('button', { name: /^Play from / });
    const label = (await button.getAttribute('aria-label'))!;
    const [h, m, s] = label.replace('Play from ', '').split(':').map(Number);
    const at = h! * 3600 + m! * 60 + s!;
    expect(at).toBeGreaterThan(0);
    await button.click();
    await expect.poll(async () => (await state()).src).toContain('speaker=Laura');
    expect(await choice.inputValue()).toContain('speaker=Laura');
    await expect
      .poll(async () => (await state()).currentTime, { timeout: 20_000 })
      .toBeGreaterThanOrEqual(at);
    await expect
      .poll(() => page.locator('.transcript-line.is-playing').textContent())
      .toContain('Vex listens');

    // Matt's line: back to his track, from the start.
    await page
      .locator('.transcript-line', { hasText: 'The lanterns flicker' })
      .getByRole('button', { name: /^Play from / })
      .click();
    await expect.poll(async () => (await state()).src).toContain('speaker=Matt');
    expect((await state()).currentTime).toBeLessThan(at);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByLabel('Speaker track').scrollIntoViewIfNeeded();
    await expectFitsPhone(page);
    await page.screenshot({ path: `${SHOTS}/tracks-phone.png` });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(errors).toEqual([]);
  });
});
