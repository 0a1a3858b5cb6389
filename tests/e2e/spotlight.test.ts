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
import { crd3Transcript } from '../support/crd3.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-spotlight';

const readStorage = (page: Page, key: string) =>
  page.evaluate(
    (k) =>
      (
        globalThis as unknown as { localStorage: { getItem(key: string): string | null } }
      ).localStorage.getItem(k),
    key,
  );

const main = (page: Page) => page.locator('main');

/** The spotlight and the cost on the session page, the campaign dashboard and the live viewer. */
describe('spotlight and session cost (embedded)', { timeout: 180_000 }, () => {
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let token = '';
  let owner = '';

  const api = async <T>(method: string, p: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${system.url}/api${p}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as T;
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    system = await startSystem({ mode: 'embedded', processes: 'one', env: { SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    await signInLocally(page, 'Vex');
    await page.waitForURL((u) => u.pathname === '/welcome' || u.pathname === '/');
    token = (await readStorage(page, 'auth_token')) ?? '';
    owner = (JSON.parse((await readStorage(page, 'auth_user')) ?? '{}') as { id: string }).id;
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('charts a session and the campaign at 1280 and 390 px, the GM apart, with the cost', async () => {
    const group = await api<{ id: string }>('POST', '/groups', { name: 'Vox Machina' });
    await api('PUT', `/groups/${group.id}/characters`, {
      links: [
        { speaker: 'LAURA', character: 'Vex' },
        { speaker: 'TRAVIS', character: 'Grog' },
        { speaker: 'LIAM', character: 'Vax' },
        { speaker: 'SAM', character: 'Scanlan' },
        { speaker: 'TALIESIN', character: 'Percy' },
        { speaker: 'MARISHA', character: 'Keyleth' },
        { speaker: 'ORION', character: 'Tiberius' },
        { speaker: 'ASHLEY', character: 'Pike' },
      ],
    });
    const ids: string[] = [];
    for (const [name, ep, date] of [
      ['Into the Underdark', 'C1E005', '2026-01-20T19:00:00Z'],
      ['Whitestone Siege', 'C1E056', '2026-02-07T19:00:00Z'],
    ] as const) {
      const s = await api<{ id: string }>('POST', '/transcripts/manual', {
        name,
        session_date: date,
        group_id: group.id,
        transcript: crd3Transcript(ep, { timed: true, maxChars: 20_000 }),
      });
      ids.push(s.id);
    }

    await page.goto(`/sessions/${ids[1]}`);
    const card = main(page).locator('.viewer-spotlight');
    await card.getByRole('heading', { name: 'Spotlight' }).waitFor({ timeout: 20_000 });
    await card.getByText(/Game master: MATT/).waitFor();
    await card.locator('.recharts-surface').first().waitFor();
    expect(await card.locator('.recharts-bar-rectangle').count()).toBeGreaterThan(1);
    expect(await card.locator('tbody tr').first().innerText()).toMatch(/^MATT/);
    await main(page)
      .getByText(/Cost \$0/)
      .waitFor();
    await card.screenshot({ path: `${SHOTS}/session-1280.png` });
    await page.screenshot({ path: `${SHOTS}/session-page-1280.png`, fullPage: true });

    await page.setViewportSize({ width: 390, height: 844 });
    await card.scrollIntoViewIfNeeded();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);
    await card.screenshot({ path: `${SHOTS}/session-390.png` });

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`/groups/${group.id}`);
    const campaign = main(page).locator('section', { has: page.getByRole('heading', { name: 'Spotlight' }) });
    await campaign.getByText(/Game master: MATT/).waitFor({ timeout: 20_000 });
    expect(await campaign.locator('.recharts-line').count()).toBeGreaterThan(1);
    expect(await campaign.getByRole('columnheader', { name: 'Last large share' }).count()).toBe(1);
    await campaign.screenshot({ path: `${SHOTS}/campaign-1280.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await campaign.scrollIntoViewIfNeeded();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);
    await campaign.screenshot({ path: `${SHOTS}/campaign-390.png` });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(errors).toEqual([]);
  });

  it('moves the running shares as a live session records', async () => {
    const machineKey = readFileSync(path.join(system.env.DATA_DIR!, LIVE_INGEST_KEY_FILE), 'utf8').trim();
    const ingest = async <T>(p: string, body: unknown): Promise<T> => {
      const res = await fetch(`${system.url}/api/live-ingest${p}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${machineKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as T;
    };
    const session = await ingest<{ transcript_id: string; ingest_token: string }>('/sessions', {
      owner_id: owner,
      name: 'Live spotlight',
    });
    const said = (n: number, who: string, text: string) => ({
      utterance_id: `utt-${n}`,
      text,
      speaker_tag: 0,
      speaker_info: { displayName: who },
      start_seconds: n * 5,
      end_seconds: n * 5 + 4,
      is_final: true,
    });
    const send = (...utterances: ReturnType<typeof said>[]) =>
      ingest(`/sessions/${session.transcript_id}/utterances`, {
        ingest_token: session.ingest_token,
        utterances,
      });
    await send(
      said(1, 'GM', 'You enter the hall.'),
      said(2, 'Vex', 'I look around.'),
      said(3, 'Grog', 'I smash.'),
    );
    await page.goto(`/sessions/${session.transcript_id}`);
    const card = main(page).locator('.viewer-spotlight');
    await card.getByRole('heading', { name: 'Spotlight so far' }).waitFor({ timeout: 20_000 });
    const shareOf = async (who: string) =>
      (await card.locator('tbody tr', { hasText: who }).locator('td').nth(3).innerText()).trim();
    await card.locator('tbody tr', { hasText: 'Grog' }).waitFor();
    // Counted in the browser by the server's rules: Vex 5 s of the players' 6 s (Grog's last line: 2 words, 1 s).
    expect(await shareOf('Vex')).toBe('83%');
    expect(await shareOf('GM')).toBe('—');
    await send(said(4, 'Vex', 'I shoot.'), said(5, 'Vex', 'Again.'));
    // Grog now 5 s; Vex 5 + 5 + 1 s: 11 of 16 s.
    await expect.poll(() => shareOf('Grog'), { timeout: 15_000 }).toBe('31%');
    expect(await shareOf('Vex')).toBe('69%');
    await card.screenshot({ path: `${SHOTS}/live-1280.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: `${SHOTS}/live-390.png` });
    expect(errors).toEqual([]);
  });
});
