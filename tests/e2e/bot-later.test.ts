import { TRANSCRIBE_NEEDS_PROVIDER, type Transcript } from '@chronicler/contracts';
import { existsSync, mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VoiceTable } from '../peers/discord-voice/table.ts';
import { guildIdForShard, type PeerGuild } from '../peers/discord.ts';
import { apiCall } from '../support/api.ts';
import { expectFitsPhone, launchBrowser, newPage } from '../support/browser.ts';
import { waitFor } from '../support/system.ts';
import { keptTracks, seatTable, sessionIdIn, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const SHOTS = '/tmp/shots-bot-later';
const hasEspeak = existsSync('/usr/bin/espeak-ng');

// A session the voice bot recorded while no speech provider was set: it ended with no lines and
// each speaker's track kept. The viewer says it is not transcribed yet and offers "Transcribe
// now" (which names the settings while there is still no provider), not "no transcript".
describe.runIf(hasEspeak)('the viewer of a bot session recorded without a provider', () => {
  let rig: VoiceRig;
  let table: VoiceTable;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let tid = '';
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 42),
    name: 'Quiet Table',
    ownerId: '6001',
    channels: [
      { id: '9101', name: 'table-talk', type: 0 },
      { id: '9102', name: 'Tavern', type: 2 },
    ],
    members: [
      { id: '6001', username: 'matt', nick: 'Matt' },
      { id: '6002', username: 'laura', nick: 'Laura' },
    ],
  };
  const matt = { key: '6001', displayName: 'Matt', userId: '6001' };
  const laura = { key: '6002', displayName: 'Laura', userId: '6002' };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // The rig sets a Deepgram key: taken away, no provider is left.
    rig = await startVoiceRig(
      guild,
      {
        SUMMARY_AUTOMATIC: 'false',
        DEEPGRAM_API_KEY: '',
        ASSEMBLYAI_API_KEY: '',
        TRANSCRIPTION_BASE_URL: '',
      },
      { processes: 'one', browser: true },
    );
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, rig.system.url));
    await page.goto('/login');
    await page.getByRole('button', { name: 'Login with Discord' }).click();
    await page.waitForURL('**/welcome');

    table = await seatTable(rig, guild.id, '9102', ['6001', '6002']);
    const spoken = await table.prepare([
      { speaker: matt, text: 'The lanterns flicker in the hall' },
      { speaker: laura, text: 'Vex listens at the door' },
    ]);
    const started = await rig.discord.command(guild.id, '9101', '6001', 'start');
    tid = sessionIdIn(started.content);
    const get = () => apiCall<Transcript>(rig.system.url, 'GET', `/transcripts/${tid}`, rig.owner);
    await waitFor(async () => (await get()).status === 200, 30_000);
    await table.play(spoken, { pauseSeconds: 1.5 });
    await rig.discord.command(guild.id, '9101', '6001', 'stop');
    await waitFor(async () => (await get()).body.status === 'ended', 30_000);
    await keptTracks(rig, tid, 2);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await table?.close();
    await rig?.stop();
  });

  it('says it is not transcribed yet, plays its tracks, and offers “Transcribe now”', async () => {
    await page.goto(`/sessions/${tid}`);
    await page.getByText('Not transcribed yet').waitFor();
    expect(await page.getByText('This session has no transcript.').count()).toBe(0);
    const choice = page.getByLabel('Speaker track');
    await choice.waitFor();
    expect(await choice.locator('option').allTextContents()).toEqual(['Laura', 'Matt']);
    await page.screenshot({ path: `${SHOTS}/not-transcribed.png`, fullPage: true });
    // On a phone (390 px): the notice, its button and the track player fit the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await expectFitsPhone(page);
    await page.getByRole('button', { name: 'Transcribe now' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/not-transcribed-390.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Transcribe now' }).click();
    await page.getByText(TRANSCRIBE_NEEDS_PROVIDER).waitFor();
    expect(errors).toEqual([]);
  }, 120_000);
});
