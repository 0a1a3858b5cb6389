import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeepgramPeer, type DeepgramPeer } from '../peers/deepgram.ts';
import { wav } from '../support/audio.ts';
import { expectFitsPhone, launchBrowser, newPage, signInLocally, storedToken } from '../support/browser.ts';
import { startSystem, waitFor, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-audio';

interface AudioState {
  currentTime: number;
  duration: number;
  readyState: number;
}

describe('the viewer plays a recorded session from a line', () => {
  let deepgram: DeepgramPeer;
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let id = '';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    deepgram = await startDeepgramPeer();
    system = await startSystem({ mode: 'embedded', env: { SUMMARY_AUTOMATIC: 'false', ...deepgram.env() } });
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    await signInLocally(page, 'Ashley');
    await page.waitForURL('**/welcome');
    const token = await storedToken(page);
    const form = new FormData();
    form.append('name', 'Recorded night');
    form.append('session_date', '2026-06-01T00:00:00.000Z');
    // Six seconds of 16 kHz mono: the peer's lines fall at 1, 3 and 4 seconds.
    form.append('audio', new Blob([wav(32_000 * 6)], { type: 'audio/wav' }), 'night.wav');
    const res = await fetch(`${system.url}/api/transcripts/manual-audio`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    id = ((await res.json()) as { id: string }).id;
    await waitFor(async () => {
      const tracks = await fetch(`${system.url}/api/transcripts/${id}/audio/tracks`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return tracks.ok && ((await tracks.json()) as unknown[]).length === 1;
    }, 30_000);
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await deepgram?.close();
  });

  it("clicking a line's time seeks the player there, fetches those bytes by range, and marks the line heard", async () => {
    const ranges: string[] = [];
    page.on('request', (req) => {
      if (req.url().endsWith(`/api/transcripts/${id}/audio`)) ranges.push(req.headers().range ?? '');
    });
    await page.goto(`/sessions/${id}`);
    const audio = page.locator('audio.session-audio-player');
    await audio.waitFor({ state: 'attached' });
    const state = () =>
      audio.evaluate((el) => {
        const a = el as unknown as AudioState;
        return { currentTime: a.currentTime, duration: a.duration, readyState: a.readyState };
      });
    // The browser read the recording's header from the server: it knows its length.
    await expect.poll(async () => (await state()).duration, { timeout: 20_000 }).toBeCloseTo(6, 1);
    await page.getByRole('button', { name: 'Play from 00:00:03' }).click();
    await expect.poll(async () => (await state()).currentTime).toBeGreaterThanOrEqual(3);
    const playing = page.locator('.transcript-line.is-playing');
    await expect.poll(() => playing.textContent()).toContain('I roll for initiative.');
    expect(ranges.some((r) => r.startsWith('bytes='))).toBe(true);
    await page.screenshot({ path: `${SHOTS}/player-desktop.png` });
    await page.getByRole('button', { name: 'Play from 00:00:01' }).click();
    await expect.poll(() => playing.textContent()).toContain('Welcome back to the table');
    expect((await state()).currentTime).toBeLessThan(3);
    // On a phone (390 px) the times still play and mark the line heard; nothing is cut off.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Play from 00:00:03' }).click();
    await expect.poll(() => playing.textContent()).toContain('I roll for initiative.');
    await expectFitsPhone(page);
    await page.screenshot({ path: `${SHOTS}/player-phone.png` });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(errors).toEqual([]);
  });

  it('a link to a moment (search, the codex) opens the session there and plays the recording from it', async () => {
    await page.goto('/');
    await page.goto(`/sessions/${id}#t=00:00:03`);
    const audio = page.locator('audio.session-audio-player');
    await audio.waitFor({ state: 'attached' });
    await page.locator('.transcript-line.is-target').waitFor();
    await expect
      .poll(() => audio.evaluate((el) => (el as unknown as AudioState).currentTime), { timeout: 20_000 })
      .toBeGreaterThanOrEqual(3);
    await expect
      .poll(() => page.locator('.transcript-line.is-playing').textContent())
      .toContain('I roll for initiative.');
    expect(errors).toEqual([]);
  });

  it('the dashboard shows the storage recordings take and sets how long they are kept', async () => {
    await page.goto('/');
    const card = page.getByRole('region', { name: 'Recordings' });
    await card.getByText('187.5 KB kept for 1 session.').waitFor();
    await card.getByLabel('Keep recordings').selectOption('90');
    await card.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Audio retention saved').waitFor();
    await page.reload();
    expect(
      await page.getByRole('region', { name: 'Recordings' }).getByLabel('Keep recordings').inputValue(),
    ).toBe('90');
    await card.screenshot({ path: `${SHOTS}/storage-card.png` });
    expect(errors).toEqual([]);
  });
});
