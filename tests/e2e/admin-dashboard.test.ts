import type { AuthCheckResponse } from '@chronicler/contracts';
import { busSink, readCrd3Turns, replaySession, type LiveSink } from '@chronicler/voice-bot/replay';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { startOpenAiPeer, type OpenAiPeer } from '../peers/openai.ts';
import {
  expectFitsPhone,
  launchBrowser,
  newPage,
  pageScrollWidth,
  signInLocally,
} from '../support/browser.ts';
import { crd3Transcript, CRD3_DIR } from '../support/crd3.ts';
import { startSystem, waitFor, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-admin';

const statValue = (page: Page, label: string) =>
  page.locator('.stat-card', { has: page.getByText(label, { exact: true }) }).locator('.stat-value');

describe('admin dashboard in the browser', () => {
  let system: TestSystem;
  let model: OpenAiPeer;
  let browser: Browser;
  let releaseLive!: () => void;
  let live: Promise<unknown>;
  let liveId: string;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // A model that bills: the offline engine's requests cost $0, and an all-zero week shows
    // "No data available." where the cost chart would be.
    model = await startOpenAiPeer();
    system = await startSystem({ mode: 'embedded', env: { ...model.env(), ADMIN_LOCAL_USERS: 'keyleth' } });
    browser = await launchBrowser();

    // Real usage: two sessions by a player, summarised by the model (AI requests),
    // and a live session that stays running until the test ends it.
    const player = await localSignIn(system.url, 'pike');
    const playerId = (player.body as AuthCheckResponse).user!.id;
    for (const name of ['Arrival', 'Departure']) {
      const res = await apiCall(system.url, 'POST', '/transcripts/manual', player.cookie, {
        name,
        session_date: new Date().toISOString(),
        transcript: crd3Transcript('C1E001', { timed: true, maxChars: 3000 }),
      });
      expect(res.status).toBe(200);
    }
    await waitFor(async () => {
      const rows = await system.platform!.db.query('select 1 from admin_stats.ai_requests');
      return rows.length >= 2;
    }, 30_000);
    const held = new Promise<void>((r) => (releaseLive = r));
    const inner = busSink(system.platform!.bus);
    const sink: LiveSink = {
      start: (s) => inner.start(s),
      send: (id, u) => inner.send(id, u),
      end: async (id, e) => {
        await held;
        return inner.end(id, e);
      },
      close: () => inner.close(),
    };
    const turns = (await readCrd3Turns(path.join(CRD3_DIR, 'C1E001.json'))).slice(0, 3);
    let started!: (id: string) => void;
    const id = new Promise<string>((r) => (started = r));
    live = replaySession(sink, turns, { owner: playerId, speed: 200, onStart: started });
    liveId = await id;
  });
  afterAll(async () => {
    releaseLive?.();
    await live?.catch(() => undefined);
    await browser?.close();
    await system?.stop();
    await model?.close();
  });

  it('shows an admin the cards, charts and tables with the real figures, at 1280 and 390 px', async () => {
    const { page, errors } = await newPage(browser, system.url);
    await signInLocally(page, 'Keyleth');
    await page.waitForURL('**/welcome');
    await page.goto('/admin');
    await page.getByRole('heading', { name: 'Admin Dashboard', level: 1 }).waitFor();

    await expect
      .poll(() => statValue(page, 'Total Transcripts').textContent(), { timeout: 15_000 })
      .toBe('3');
    expect(await statValue(page, 'Total Users').textContent()).toBe('2');
    await expect.poll(() => statValue(page, 'Active Sessions').textContent(), { timeout: 15_000 }).toBe('1');
    expect(await statValue(page, 'Deepgram WebSockets').textContent()).toBe('0');
    expect(await statValue(page, 'AssemblyAI WebSockets').textContent()).toBe('0');
    expect(await page.getByRole('link', { name: 'Deepgram dashboard' }).getAttribute('href')).toBe(
      'https://console.deepgram.com/',
    );
    expect(await page.getByRole('link', { name: 'AssemblyAI dashboard' }).getAttribute('href')).toBe(
      'https://www.assemblyai.com/app',
    );

    for (const title of ['AI Cost (Past 7 Days)', 'Sessions in Last 7 Days']) {
      const chart = page.getByRole('region', { name: title });
      await chart.locator('.recharts-surface').first().waitFor();
      // Seven days on the axis.
      expect(await chart.locator('.recharts-xAxis .recharts-cartesian-axis-tick').count()).toBe(7);
    }
    // The cost axis shows 3 decimals.
    const costAxis = page
      .getByRole('region', { name: 'AI Cost (Past 7 Days)' })
      .locator('text.recharts-cartesian-axis-tick-value[orientation="left"]');
    await expect.poll(() => costAxis.count()).toBeGreaterThan(1);
    const costTicks = await costAxis.allTextContents();
    for (const t of costTicks) expect(t).toMatch(/^\d+\.\d{3}$/);
    // Small costs still get a readable top tick rather than a column of 0.000.
    expect(new Set(costTicks).size).toBe(costTicks.length);
    // No transcription was recorded yet (the live session records its time when it ends).
    await page.getByText('No transcription data available.', { exact: true }).waitFor();
    // The chart says which hours it counts: audio transcribed, and what streaming providers bill.
    expect(
      await page.getByRole('region', { name: 'Transcription Hours per Day (Past Week)' }).textContent(),
    ).toContain('Speech stream hours (billed per speaker)');

    const aiTable = page.getByRole('region', { name: 'Recent AI Requests' });
    await expect.poll(() => aiTable.locator('tbody tr').count()).toBeGreaterThanOrEqual(2);
    const firstRow = await aiTable.locator('tbody tr').first().locator('td').allTextContents();
    expect(firstRow[0]).toMatch(/^[0-9a-f]{8}pike$/);
    expect(firstRow[6]).toBe('Success');
    expect(firstRow[5]).toMatch(/^\$\d+\.\d{4}$/);

    const sessions = page.getByRole('region', { name: 'Active Session Details' });
    const cells = await sessions.locator('tbody tr').first().locator('td').allTextContents();
    expect(cells[0]).toBe(`${liveId.slice(0, 12)}...`);
    expect(cells[1]).toBe(`${liveId.slice(0, 12)}...`);
    expect(Number(cells[4])).toBeGreaterThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}/admin-1280.png`, fullPage: true });

    // A phone: nothing wider than the screen but the tables, which scroll in their own box.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);
    const wrap = page.locator('.admin-table-wrap').first();
    const [scrollWidth, clientWidth] = await wrap.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    expect(scrollWidth).toBeGreaterThan(clientWidth);
    const chartWidth = await page
      .getByRole('region', { name: 'Sessions in Last 7 Days' })
      .locator('.recharts-surface')
      .first()
      .evaluate((el) => el.getBoundingClientRect().width);
    expect(chartWidth).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${SHOTS}/admin-390.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    // The session ends: the open dashboard shows it (refetched; a reload stands in for 30 s).
    releaseLive();
    await live;
    await waitFor(async () => {
      const rows = await system.platform!.db.query(
        'select 1 from admin_stats.live_sessions where ended_at is not null and transcript_id = $1',
        [liveId],
      );
      return rows.length === 1;
    }, 20_000);
    await page.reload();
    await page.getByText('No active sessions at the moment.', { exact: true }).waitFor();
    expect(await statValue(page, 'Active Sessions').textContent()).toBe('0');
    expect(errors).toEqual([]);
  });

  it('sends a non-admin who opens /admin to /', async () => {
    const { page } = await newPage(browser, system.url);
    await signInLocally(page, 'Scanlan');
    await page.waitForURL('**/welcome');
    await page.goto('/admin');
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByRole('heading', { name: 'Your Dashboard', level: 1 }).waitFor();
    expect(await page.getByText('Loading Admin Dashboard...').count()).toBe(0);
  });
});
