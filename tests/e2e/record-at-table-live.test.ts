import type { AudioTrack } from '@chronicler/contracts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeepgramLivePeer, type DeepgramLivePeer } from '../peers/deepgram-live.ts';
import { decodedSeconds, speechWavFile } from '../support/audio.ts';
import {
  controlsCutOff,
  expectFitsPhone,
  launchBrowser,
  pageScrollWidth,
  signInLocally,
  storedToken,
} from '../support/browser.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-record';
const SAID = 'The dragon wakes up and the tavern shakes. I roll for initiative.';

/** 'HH:MM:SS' in seconds. */
const secondsOf = (time: string): number => {
  const [h, m, s] = time.split(':').map(Number);
  return h! * 3600 + m! * 60 + s!;
};

describe('record at the table with a streaming provider, on a phone (390 px)', () => {
  let system: TestSystem;
  let deepgram: DeepgramLivePeer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let dir: string;
  const errors: Error[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'record-table-live-'));
    const spoken = path.join(dir, 'said.wav');
    speechWavFile(spoken, SAID);
    // The microphone says it over and over, two seconds of silence after each time.
    const mic = path.join(dir, 'mic.wav');
    execFileSync('ffmpeg', ['-v', 'error', '-i', spoken, '-af', 'apad=pad_dur=2', mic]);
    deepgram = await startDeepgramLivePeer({ silenceMs: 600 });
    // Each time the microphone says it (a voiced stretch the peer hears end in silence) is the
    // line: the browser's processing and Opus change the audio too much to match it by its levels.
    deepgram.script(Array.from({ length: 100 }, () => SAID));
    system = await startSystem({ mode: 'embedded', env: { ...deepgram.env(), SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser([
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${mic}`,
      '--autoplay-policy=no-user-gesture-required',
    ]);
    context = await browser.newContext({ baseURL: system.url, viewport: { width: 390, height: 844 } });
    await context.grantPermissions(['microphone']);
    page = await context.newPage();
    page.on('pageerror', (err) => errors.push(err));
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await deepgram?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The times of the live lines that say the line (interims left out). */
  const liveTimes = async (): Promise<number[]> => {
    const rows = page.locator('.record-lines .record-line:not(.is-interim)', { hasText: 'initiative' });
    const times = await rows.locator('.record-line-time').allTextContents();
    return times.map((t) => secondsOf(t.trim().replace(/^\[|\]$/g, ''))).filter((n) => Number.isFinite(n));
  };

  it('shows its lines live, through a reload and a lost network, and plays from a line', async () => {
    await signInLocally(page, 'Vex');
    await page.waitForURL('**/welcome');
    await page.goto('/record');
    await page.getByLabel('Session Name').fill('Friday at the table');
    await page.getByRole('button', { name: 'Start recording' }).click();
    await page.getByText('Recording', { exact: true }).waitFor();

    // Its lines come as they are spoken.
    await expect.poll(async () => (await liveTimes()).length, { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
    await page.screenshot({ path: `${SHOTS}/live-phone.png`, fullPage: true });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);

    // A reload: the lines said so far are there again, and the recording goes on.
    const beforeReload = (await liveTimes()).length;
    await page.reload();
    await page.getByRole('button', { name: 'Resume recording' }).click();
    await page.getByText('Recording', { exact: true }).waitFor();
    await expect
      .poll(async () => (await liveTimes()).length, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(beforeReload);

    // 20 s without network: what was said meanwhile is transcribed once the chunks arrive.
    const clock = async () => secondsOf((await page.getByRole('timer').textContent()) ?? '');
    await expect.poll(clock).toBeGreaterThan(0);
    const cutAt = await clock();
    await context.setOffline(true);
    await page.getByText('Network lost', { exact: false }).waitFor({ timeout: 20_000 });
    await page.waitForTimeout(20_000);
    const backAt = await clock();
    await context.setOffline(false);
    await page.getByText('Everything recorded so far is saved on the server.').waitFor({ timeout: 60_000 });
    // Lines within the cut (less a few seconds at its edges): none of it was lost.
    await expect
      .poll(async () => (await liveTimes()).filter((t) => t > cutAt + 3 && t < backAt - 3).length, {
        timeout: 60_000,
      })
      .toBeGreaterThanOrEqual(1);
    await page.screenshot({ path: `${SHOTS}/live-after-cut-phone.png`, fullPage: true });

    const recorded = await clock();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 90_000 });
    const id = page.url().split('/').pop()!;

    // The recording kept with the lines: as long as the clock said, less at most a few seconds.
    const headers = { authorization: `Bearer ${await storedToken(page)}` };
    const tracks = (await (
      await fetch(`${system.url}/api/transcripts/${id}/audio/tracks`, { headers })
    ).json()) as AudioTrack[];
    expect(tracks).toMatchObject([{ speaker: 'Table', format: 'webm' }]);
    const file = path.join(dir, 'kept.webm');
    const kept = await fetch(`${system.url}/api/transcripts/${id}/audio?speaker=Table`, { headers });
    writeFileSync(file, Buffer.from(await kept.arrayBuffer()));
    const seconds = decodedSeconds(file);
    expect(seconds).toBeGreaterThan(recorded - 5);
    expect(seconds).toBeLessThan(recorded + 3);

    // The session holds the lines and the recording: a line's time plays from there.
    const line = page.locator('.transcript-line', { hasText: 'initiative' }).last();
    const play = line.getByRole('button', { name: /^Play from / });
    await play.waitFor({ timeout: 60_000 });
    const at = secondsOf((await play.getAttribute('aria-label'))!.replace('Play from ', ''));
    expect(at).toBeGreaterThan(0);
    await play.click();
    const audio = page.locator('audio.session-audio-player');
    await expect
      .poll(() => audio.evaluate((el) => (el as unknown as { currentTime: number }).currentTime), {
        timeout: 20_000,
      })
      .toBeGreaterThanOrEqual(at);
    await page.screenshot({ path: `${SHOTS}/live-saved-phone.png`, fullPage: true });
    expect(errors).toEqual([]);
  }, 240_000);

  it('shows its lines live on a laptop in the middle of the table too (1280 px)', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/record');
    await page.getByLabel('Session Name').fill('Laptop at the table');
    await page.getByRole('button', { name: 'Start recording' }).click();
    await page.getByText('Recording', { exact: true }).waitFor();
    await expect.poll(async () => (await liveTimes()).length, { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
    // The session is in the sidebar while it records.
    await page.locator('.sidebar').getByText('Laptop at the table').waitFor();
    await page.screenshot({ path: `${SHOTS}/live-laptop.png`, fullPage: true });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(1280);
    expect(await controlsCutOff(page)).toEqual([]);
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 90_000 });
    await page.locator('.transcript-line', { hasText: 'initiative' }).first().waitFor({ timeout: 60_000 });
    expect(errors).toEqual([]);
  }, 180_000);
});
