import { LIVE_INGEST_KEY_FILE } from '@chronicler/contracts';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectFitsPhone,
  launchBrowser,
  newPage,
  pageScrollWidth,
  signInLocally,
} from '../support/browser.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-live-viewer';

/** Runs in the page; the test project's TypeScript has no DOM types. */
const readStorage = (page: Page, key: string) =>
  page.evaluate(
    (k) =>
      (
        globalThis as unknown as { localStorage: { getItem(key: string): string | null } }
      ).localStorage.getItem(k),
    key,
  );

interface Utterance {
  utterance_id: string;
  text: string;
  speaker_tag: number | string;
  speaker_info?: { displayName: string };
  start_seconds: number;
  end_seconds: number;
  is_final: boolean;
}

const main = (page: Page) => page.locator('main');

// A real browser against a real gateway: the live socket, the ingest entry that plays a
// session in (as the voice bot would), the stored transcript at the end.
describe('live transcript viewer (embedded)', { timeout: 120_000 }, () => {
  let system: TestSystem;
  let browser: Browser;
  let machineKey: string;
  beforeAll(async () => {
    system = await startSystem({ mode: 'embedded', processes: 'one', env: { SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser();
    machineKey = readFileSync(path.join(system.env.DATA_DIR!, LIVE_INGEST_KEY_FILE), 'utf8').trim();
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  async function ingest<T>(p: string, body: unknown): Promise<T> {
    const res = await fetch(`${system.url}/api/live-ingest${p}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${machineKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as T;
  }

  it('shows lines as they are spoken, keeps the reader where they are, and turns into the ended transcript without a reload', async () => {
    const { page, errors } = await newPage(browser, system.url);
    await signInLocally(page, 'Keyleth');
    await page.waitForURL((u) => u.pathname === '/welcome' || u.pathname === '/');
    const owner = (JSON.parse((await readStorage(page, 'auth_user')) ?? '{}') as { id: string }).id;

    const session = await ingest<{ transcript_id: string; ingest_token: string }>('/sessions', {
      owner_id: owner,
      name: 'Live at the Sun Tree',
    });
    const id = session.transcript_id;
    const send = (...utterances: Utterance[]) =>
      ingest(`/sessions/${id}/utterances`, { ingest_token: session.ingest_token, utterances });
    const said = (n: number, text: string, isFinal = true, who: string | number = 'Vex'): Utterance => ({
      utterance_id: `utt-${n}`,
      text,
      speaker_tag: typeof who === 'number' ? who : 0,
      ...(typeof who === 'string' ? { speaker_info: { displayName: who } } : {}),
      start_seconds: n * 3,
      end_seconds: n * 3 + 2,
      is_final: isFinal,
    });
    await send(said(1, 'We should not be here.'), said(2, 'Roll for perception.', true, 2));

    await page.goto(`/sessions/${id}`);
    // A mark in the page: it survives only if the end does not reload the page.
    await page.evaluate(() => ((globalThis as unknown as { __sameDocument: boolean }).__sameDocument = true));
    const lines = main(page).locator('.transcript-line');
    await main(page).getByText('Connected', { exact: true }).waitFor({ timeout: 15_000 });
    await main(page).getByText('Active', { exact: true }).waitFor();
    await lines.nth(1).waitFor();
    expect(await lines.allInnerTexts()).toEqual([
      '[00:00:03] Vex: We should not be here.',
      '[00:00:06] Speaker 2: Roll for perception.',
    ]);
    expect(await main(page).getByRole('button', { name: 'Delete' }).count()).toBe(0);
    expect(await main(page).getByRole('heading', { name: 'Summary' }).count()).toBe(0);

    // An interim shows as in progress, a later one replaces it, its final takes its place.
    await send(said(3, 'I look', false, 'Keyleth'));
    const interim = main(page).locator('.transcript-line.is-interim');
    await interim.getByText('I look').waitFor();
    await send(said(3, 'I look around the', false, 'Keyleth'));
    await interim.getByText('I look around the').waitFor();
    expect(await interim.count()).toBe(1);
    expect(await interim.innerText()).toBe('[00:00:09] Keyleth: I look around the in progress');
    await send(said(3, 'I look around the grove.', true, 'Keyleth'));
    await interim.waitFor({ state: 'detached' });
    await lines.filter({ hasText: 'I look around the grove.' }).waitFor();

    // Enough lines to scroll: a reader at the bottom follows them.
    const many: Utterance[] = [];
    for (let n = 4; n <= 60; n++)
      many.push(said(n, `Line ${n} of the long night in the grove.`, true, n % 2 ? 'Vex' : 'Keyleth'));
    await send(...many);
    await lines.filter({ hasText: 'Line 60 of the long night' }).waitFor();
    const box = main(page).locator('.transcript-scroll');
    const gap = () =>
      box.evaluate((el) => {
        const e = el as unknown as { scrollHeight: number; scrollTop: number; clientHeight: number };
        return e.scrollHeight - e.scrollTop - e.clientHeight;
      });
    await expect.poll(gap).toBeLessThan(50);

    // A reader who scrolled up stays where they are as lines arrive, and can jump back.
    await box.evaluate((el) => ((el as unknown as { scrollTop: number }).scrollTop = 0));
    const jump = main(page).getByRole('button', { name: 'Jump to live' });
    await jump.waitFor();
    await send(said(61, 'Something moves in the trees.', true, 'Vex'));
    await box.locator('.transcript-lines[data-count="61"]').waitFor();
    expect(await box.evaluate((el) => (el as unknown as { scrollTop: number }).scrollTop)).toBe(0);
    await lines.first().getByText('We should not be here.').waitFor();
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}/live-scrolled-up.png` });
    await jump.click();
    await lines.filter({ hasText: 'Something moves in the trees.' }).waitFor();
    await expect.poll(gap).toBeLessThan(50);
    await jump.waitFor({ state: 'detached' });

    // On a phone (390 px) the lines scroll with the page: the reader at the end of them
    // follows new ones in the window, nothing is wider than the screen or cut off.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);
    const scrollY = () => page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY);
    /** The line is in the window (below the phone's 48 px top bar). */
    const inWindow = async (text: string) => {
      const box = await lines.filter({ hasText: text }).boundingBox();
      return box !== null && box.y >= 48 && box.y + box.height <= 844;
    };
    await jump.waitFor({ state: 'detached' });
    await page.evaluate(() =>
      (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 1e7),
    );
    await send(said(62, 'The wind carries a whisper from the west.', true, 'Keyleth'));
    await lines.filter({ hasText: 'The wind carries a whisper from the west.' }).waitFor();
    await expect.poll(() => inWindow('The wind carries a whisper from the west.')).toBe(true);
    await main(page).getByText('Connected', { exact: true }).waitFor();
    await page.screenshot({ path: `${SHOTS}/live-390.png` });
    // A phone reader who scrolled up stays there; the way back sits at the screen's bottom.
    await page.evaluate(() =>
      (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0),
    );
    await jump.waitFor();
    const jumpBox = (await jump.boundingBox())!;
    expect(jumpBox.y + jumpBox.height).toBeLessThanOrEqual(844);
    expect(jumpBox.x).toBeGreaterThanOrEqual(0);
    expect(jumpBox.x + jumpBox.width).toBeLessThanOrEqual(390);
    await send(said(63, 'An owl calls twice.', true, 'Vex'));
    await box.locator('.transcript-lines[data-count="63"]').waitFor();
    expect(await scrollY()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/live-390-scrolled-up.png` });
    await jump.click();
    await expect.poll(() => inWindow('An owl calls twice.')).toBe(true);
    await jump.waitFor({ state: 'detached' });
    await page.setViewportSize({ width: 1280, height: 800 });

    // Find works on live lines too.
    await main(page).getByRole('searchbox', { name: 'Find in transcript' }).fill('grove');
    await main(page).getByText('1 of 58', { exact: true }).waitFor();

    // The end: the page becomes the ended transcript (stored text, summary, delete) in place.
    await ingest(`/sessions/${id}/end`, { ingest_token: session.ingest_token, final_count: 63 });
    // Sooner than the 5 s poll could notice: the socket's session_end did it.
    await main(page).getByText('Ended', { exact: true }).waitFor({ timeout: 4000 });
    await main(page).getByRole('heading', { name: 'Summary' }).waitFor();
    await main(page).getByRole('button', { name: 'Delete' }).waitFor();
    expect(await main(page).getByText('Connected', { exact: true }).count()).toBe(0);
    expect(
      await page.evaluate(() => (globalThis as unknown as { __sameDocument?: boolean }).__sameDocument),
    ).toBe(true);
    // The lists were refreshed: the sidebar no longer calls it live.
    const sidebarItem = page.locator('aside').getByText('Live at the Sun Tree').first();
    await sidebarItem.waitFor();
    await expect
      .poll(() => page.locator('aside').locator('.session-badge.is-live').count(), { timeout: 10_000 })
      .toBe(0);
    await box.evaluate((el) => ((el as unknown as { scrollTop: number }).scrollTop = 0));
    await lines.first().getByText('We should not be here.').waitFor();
    expect(await lines.first().innerText()).toBe('[00:00:03] Vex: We should not be here.');
    await page.screenshot({ path: `${SHOTS}/live-ended.png` });
    expect(errors).toEqual([]);
  });
});
