import { TRANSCRIBE_NEEDS_PROVIDER, type AudioTrack } from '@chronicler/contracts';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** The recorder's clock (hh:mm:ss) in seconds. */
const clockSeconds = async (page: Page): Promise<number> => {
  const [h, m, s] = ((await page.getByRole('timer').textContent()) ?? '').split(':').map(Number);
  return h! * 3600 + m! * 60 + s!;
};

describe('record at the table from a fake microphone, on a phone (390 px)', () => {
  let system: TestSystem;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let dir: string;
  const errors: Error[] = [];
  const acked: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    dir = mkdtempSync(path.join(os.tmpdir(), 'record-table-'));
    const speech = path.join(dir, 'table.wav');
    // Chromium plays this file as the microphone, over and over.
    speechWavFile(speech, 'Welcome back to the table, everyone. The dragon wakes up. I roll for initiative.');
    // No speech provider: the recording is kept, to be transcribed later.
    system = await startSystem({ mode: 'embedded', env: { SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser([
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${speech}`,
      '--autoplay-policy=no-user-gesture-required',
    ]);
    context = await browser.newContext({ baseURL: system.url, viewport: { width: 390, height: 844 } });
    await context.grantPermissions(['microphone']);
    page = await context.newPage();
    page.on('pageerror', (err) => errors.push(err));
    page.on('response', (res) => {
      if (res.url().includes('/chunks?') && res.status() === 200) acked.push(new URL(res.url()).search);
    });
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const ackedIn = (part: number) => acked.filter((q) => q.includes(`part=${part}&`)).length;

  it('records, survives a reload and a lost network, and plays back what was recorded', async () => {
    await signInLocally(page, 'Keyleth');
    await page.waitForURL('**/welcome');
    await page.goto('/');
    await page.getByRole('link', { name: 'Record at the table' }).click();
    await page.waitForURL('**/record');
    await page.getByLabel('Session Name').fill('Thursday at the table');
    await page.getByText('the recording is kept and can be transcribed', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Start recording' }).click();
    await page.getByText('Recording', { exact: true }).waitFor();
    // The meter moves with the fake microphone's speech.
    await expect
      .poll(async () => Number(await page.getByRole('meter').getAttribute('aria-valuenow')), {
        timeout: 20_000,
      })
      .toBeGreaterThan(0);
    await expect.poll(() => ackedIn(0), { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
    await page.screenshot({ path: `${SHOTS}/recording-phone.png`, fullPage: true });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);

    // Pause and resume: the clock stands still while paused.
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Paused', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Recording', { exact: true }).waitFor();

    // A reload in the middle: the page offers the recording it finds, and it goes on.
    await page.reload();
    await page.getByText('was interrupted after', { exact: false }).waitFor();
    await page.screenshot({ path: `${SHOTS}/interrupted-phone.png`, fullPage: true });
    await page.getByRole('button', { name: 'Resume recording' }).click();
    await page.getByText('Recording', { exact: true }).waitFor();
    await expect.poll(() => ackedIn(1), { timeout: 30_000 }).toBeGreaterThanOrEqual(2);

    // The network goes for 20 s: chunks wait in the browser, then all go.
    const beforeCut = ackedIn(1);
    await context.setOffline(true);
    await page.getByText('Network lost', { exact: false }).waitFor({ timeout: 20_000 });
    await page.screenshot({ path: `${SHOTS}/offline-phone.png`, fullPage: true });
    await page.waitForTimeout(20_000);
    await context.setOffline(false);
    await expect.poll(() => ackedIn(1), { timeout: 30_000 }).toBeGreaterThan(beforeCut + 8);
    await page.getByText('Everything recorded so far is saved on the server.').waitFor({ timeout: 30_000 });

    const recorded = await clockSeconds(page);
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 60_000 });
    const id = page.url().split('/').pop()!;

    // The recording as kept: as long as the clock said, less at most a few seconds.
    const token = await storedToken(page);
    const headers = { authorization: `Bearer ${token}` };
    const tracks = (await (
      await fetch(`${system.url}/api/transcripts/${id}/audio/tracks`, { headers })
    ).json()) as AudioTrack[];
    expect(tracks).toMatchObject([{ speaker: null, format: 'webm' }]);
    const file = path.join(dir, 'kept.webm');
    writeFileSync(
      file,
      Buffer.from(
        await (await fetch(`${system.url}/api/transcripts/${id}/audio`, { headers })).arrayBuffer(),
      ),
    );
    const kept = decodedSeconds(file);
    expect(kept).toBeGreaterThan(recorded - 5);
    expect(kept).toBeLessThan(recorded + 3);

    // It plays in the session's player.
    const audio = page.locator('audio.session-audio-player');
    await audio.waitFor({ state: 'attached' });
    await expect
      .poll(() => audio.evaluate((el) => (el as unknown as { readyState: number }).readyState), {
        timeout: 20_000,
      })
      .toBeGreaterThanOrEqual(1);
    // Kept, not transcribed: "Transcribe now" says which settings a transcription needs.
    await page.getByText('Not transcribed yet').waitFor();
    await page.screenshot({ path: `${SHOTS}/saved-phone.png`, fullPage: true });
    await page.getByRole('button', { name: 'Transcribe now' }).click();
    await page.getByText(TRANSCRIBE_NEEDS_PROVIDER).waitFor();
    expect(errors).toEqual([]);
  }, 240_000);

  it('records on a laptop in the middle of the table too (1280 px)', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/record');
    await page.getByLabel('Session Name').fill('Laptop at the table');
    const before = acked.length;
    await page.getByRole('button', { name: 'Start recording' }).click();
    await page.getByText('Recording', { exact: true }).waitFor();
    // A chunk of this recording is stored.
    await expect.poll(() => acked.length, { timeout: 30_000 }).toBeGreaterThan(before);
    await page.screenshot({ path: `${SHOTS}/recording-laptop.png`, fullPage: true });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(1280);
    // Nothing cut short, the sidebar's search placeholder included.
    expect(await controlsCutOff(page)).toEqual([]);
    for (const name of ['Pause', 'Stop']) {
      const box = (await page.getByRole('button', { name }).boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(1280);
    }
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 60_000 });
    await page.getByText('Not transcribed yet').waitFor();
    expect(errors).toEqual([]);
  }, 120_000);
});
