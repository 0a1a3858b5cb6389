import { formatTranscriptLine } from '@chronicler/contracts';
import { mkdirSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFitsPhone, launchBrowser, newPage, signInLocally, storedToken } from '../support/browser.ts';
import { crd3Turns } from '../support/crd3.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-viewer';
const PHONE = { width: 390, height: 844 };
/** The phone's fixed top bar (--topbar-height) covers this much of the window's top. */
const TOP_BAR = 48;

const main = (page: Page) => page.locator('main');
const timeOf = (line: string) => /^\[(\d\d:\d\d:\d\d)\]/.exec(line)![1]!;
const textOf = (line: string) => line.replace(/^\[\d\d:\d\d:\d\d\] [^:]+: /, '');

/** The element is on screen: below the top bar and above the bottom edge. */
async function onScreen(element: Locator): Promise<void> {
  await element.waitFor();
  await expect
    .poll(async () => {
      const box = await element.boundingBox();
      return box !== null && box.y >= TOP_BAR && box.y + box.height <= PHONE.height;
    })
    .toBe(true);
}

/** The document's height, the window's, and how far the transcript's own box could scroll. */
const heights = (page: Page) =>
  page.evaluate(`(() => {
    const box = document.querySelector('.transcript-scroll');
    return {
      page: document.documentElement.scrollHeight,
      window: document.documentElement.clientHeight,
      box: box.scrollHeight - box.clientHeight,
    };
  })()`) as Promise<{ page: number; window: number; box: number }>;

// On a phone the transcript scrolls with the page (not in a box of its own inside it).
describe('a long transcript on a 390 px phone (embedded)', { timeout: 120_000 }, () => {
  let system: TestSystem;
  let browser: Browser;
  beforeAll(async () => {
    system = await startSystem({ mode: 'embedded', processes: 'one', env: { SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('scrolls with the page; a time, a find and a linked moment bring their line on screen', async () => {
    const { page, errors } = await newPage(browser, system.url);
    await signInLocally(page, 'Scanlan');
    await page.waitForURL((u) => u.pathname === '/welcome' || u.pathname === '/');
    // About a thousand timed lines of one CRD3 episode: past the 500 that render whole.
    const all = crd3Turns('C1E005')
      .slice(0, 1000)
      .map((turn, i) => formatTranscriptLine({ seconds: i * 4, speaker: turn.speaker, text: turn.text }));
    expect(all.length).toBeGreaterThan(600);
    const res = await fetch(`${system.url}/api/transcripts/manual`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${await storedToken(page)}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'One Night on a Phone',
        session_date: '2026-03-14T19:00:00.000Z',
        transcript: all.join('\n'),
      }),
    });
    expect(res.status).toBe(200);
    const session = (await res.json()) as { id: string };

    await page.setViewportSize(PHONE);
    await page.goto(`/sessions/${session.id}`);
    await main(page).locator('.transcript-line').first().waitFor();
    mkdirSync(SHOTS, { recursive: true });

    // The lines make the page long and their box does not scroll on its own; still virtualised.
    const start = await heights(page);
    expect(start.page).toBeGreaterThan(start.window * 10);
    expect(start.box).toBeLessThanOrEqual(1);
    expect(await main(page).locator('.transcript-line').count()).toBeLessThan(300);
    await expectFitsPhone(page);
    await page.screenshot({ path: `${SHOTS}/viewer-phone-top.png` });

    // Scrolling the page by hand half-way down shows the lines there.
    await page.mouse.move(200, 600);
    await page.mouse.wheel(0, start.page / 2);
    await expect
      .poll(() =>
        main(page)
          .locator('.transcript-line')
          .evaluateAll(
            (rows) =>
              rows.filter((row) => {
                const b = (
                  row as unknown as { getBoundingClientRect(): { top: number; bottom: number } }
                ).getBoundingClientRect();
                return b.top > 48 && b.bottom < 800;
              }).length,
          ),
      )
      .toBeGreaterThan(5);

    // Jump to the last line's time: it is on screen, highlighted.
    const last = all.at(-1)!;
    await main(page).getByPlaceholder('HH:MM:SS').fill(timeOf(last));
    await main(page).getByRole('button', { name: 'Go' }).click();
    const target = main(page).locator('.transcript-line.is-target');
    await onScreen(target);
    expect(await target.innerText()).toBe(last);

    // Find a phrase of a line in the middle: the current match is on screen.
    const middle = all[500]!;
    await main(page).getByPlaceholder('Find in transcript').fill(textOf(middle).slice(0, 60));
    await main(page)
      .getByText(/^1 of \d+$/)
      .waitFor();
    await onScreen(main(page).locator('mark.transcript-mark.is-current'));
    await page.screenshot({ path: `${SHOTS}/viewer-phone-find.png` });

    // A link to a moment (#t=) opens with that line on screen, highlighted.
    const linked = all[800]!;
    await page.goto(`/sessions/${session.id}#t=${timeOf(linked)}`);
    await onScreen(target);
    expect(await target.innerText()).toBe(linked);
    await expectFitsPhone(page);
    await page.screenshot({ path: `${SHOTS}/viewer-phone-moment.png` });
    expect(errors).toEqual([]);
  });
});
