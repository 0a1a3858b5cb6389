import { LIVE_INGEST_KEY_FILE, type GroupPrep } from '@chronicler/contracts';
import { httpSink, replaySession, type LiveSink, type ReplayTurn } from '@chronicler/voice-bot/replay';
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
  storedToken,
} from '../support/browser.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-prep';

// Two of the three prepared items are said (turns 3 and 5); the dragon never comes.
const TURNS: ReplayTurn[] = [
  { speaker: 'GM', text: 'Welcome back everyone, we pick up in the tavern at dusk.' },
  { speaker: 'Vex', text: 'I order a drink and look for our contact.' },
  { speaker: 'GM', text: 'The innkeeper leans in and reveals that your map is a forgery.' },
  { speaker: 'Grog', text: 'A forgery? Then who drew it, and why?' },
  { speaker: 'GM', text: 'The door bangs open and Captain Varla of the watch strides in.' },
  { speaker: 'Vex', text: 'I keep my hood up and stay quiet.' },
];

/** The planning page ticks the prepared items said in a replayed live session, then carries the rest. */
describe('prep that ticks itself off (embedded)', { timeout: 240_000 }, () => {
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let token = '';
  let owner = '';
  let machineKey = '';
  /** The planning page's session-list requests (GET /api/transcripts?...). */
  const lists: URL[] = [];

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
    machineKey = readFileSync(path.join(system.env.DATA_DIR!, LIVE_INGEST_KEY_FILE), 'utf8').trim();
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (url.pathname === '/api/transcripts') lists.push(url);
    });
    await signInLocally(page, 'Matt');
    await page.waitForURL((u) => u.pathname === '/welcome' || u.pathname === '/');
    token = await storedToken(page);
    const user = await page.evaluate(() =>
      (
        globalThis as unknown as { localStorage: { getItem(key: string): string | null } }
      ).localStorage.getItem('auth_user'),
    );
    owner = (JSON.parse(user ?? '{}') as { id: string }).id;
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  /** A campaign with two items written through the API and a third typed into the checklist. */
  async function prepare(name: string) {
    const group = await api<{ id: string }>('POST', '/groups', { name });
    await api('POST', `/groups/${group.id}/prep`, { text: 'The innkeeper reveals the map is a forgery' });
    await api('POST', `/groups/${group.id}/prep`, { text: 'Introduce Captain Varla' });
    await page.goto(`/groups/${group.id}/planning`);
    await page.getByRole('button', { name: 'OPEN DOC' }).click();
    const checklist = page.locator('.prep');
    const editor = checklist.getByRole('textbox', { name: 'Prepared items' });
    await editor.locator('li.prep-task').nth(1).waitFor({ timeout: 20_000 });
    const last = editor.locator('li.prep-task').nth(1).locator('p');
    // The caret at the end of the last item, however its line wraps: a click on the right end of
    // the item's last visual line, then End (Control+End on a phone-width line that wraps stopped
    // at the end of its first visual line). The editor takes its selection from the page's through
    // the asynchronous `selectionchange` event, and on focus it may put its own back: the caret is
    // placed again until the editor itself holds it there, or Enter splits the line it had before.
    const placeCaret = async () => {
      await last.scrollIntoViewIfNeeded();
      const box = await last.evaluate((p) => {
        const dom = globalThis as unknown as {
          document: {
            createRange(): {
              selectNodeContents(n: unknown): void;
              getClientRects(): ArrayLike<{ right: number; top: number; height: number; width: number }>;
            };
          };
        };
        const range = dom.document.createRange();
        range.selectNodeContents(p);
        const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
        const r = rects[rects.length - 1]!;
        return { x: r.right - 1, y: r.top + r.height / 2 };
      });
      await page.mouse.click(box.x, box.y);
      await page.keyboard.press('End');
    };
    const caretAtEnd = () =>
      editor.evaluate((el) => {
        const state = (
          el as unknown as {
            editor?: {
              state: {
                selection: {
                  empty: boolean;
                  $from: { parentOffset: number; parent: { textContent: string; content: { size: number } } };
                };
              };
            };
          }
        ).editor?.state;
        const { empty, $from } = state?.selection ?? { empty: false, $from: null };
        return (
          empty &&
          $from?.parent.textContent === 'Introduce Captain Varla' &&
          $from.parentOffset === $from.parent.content.size
        );
      });
    await expect
      .poll(
        async () => {
          if (!(await caretAtEnd())) await placeCaret();
          return caretAtEnd();
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    await page.keyboard.press('Enter');
    await page.keyboard.type('The dragon attacks the bridge at Highcliff');
    // The typed line is saved as an item of the plan.
    await expect
      .poll(async () => (await api<GroupPrep>('GET', `/groups/${group.id}/prep`)).items.map((i) => i.text), {
        timeout: 20_000,
      })
      .toEqual([
        'The innkeeper reveals the map is a forgery',
        'Introduce Captain Varla',
        'The dragon attacks the bridge at Highcliff',
      ]);
    return { groupId: group.id, checklist, editor };
  }

  /** Replays the session; its first line waits until the planning page is live on it. */
  function replay(groupId: string, name: string, alsoReady: (tid: string) => Promise<void> = async () => {}) {
    const http = httpSink(system.url, machineKey);
    let release = () => {};
    const ended = new Promise<void>((r) => (release = r));
    const gated: LiveSink = {
      start: (s) => http.start(s),
      send: async (tid, u) => {
        await page.locator('.prep-live.is-live').waitFor({ timeout: 60_000 });
        await alsoReady(tid);
        await http.send(tid, u);
      },
      end: async (tid, e) => {
        await ended;
        await http.end(tid, e);
      },
      close: () => http.close(),
    };
    let transcriptId = '';
    const done = replaySession(gated, TURNS, {
      owner,
      groupId,
      name,
      speed: 4,
      onStart: (tid) => (transcriptId = tid),
    });
    return { done, end: release, id: () => transcriptId };
  }

  async function expectTicked(checklist: ReturnType<Page['locator']>, transcriptId: string) {
    const item = (text: string) => checklist.locator('li.prep-task', { hasText: text });
    await expect.poll(() => item('innkeeper').getAttribute('data-checked'), { timeout: 60_000 }).toBe('true');
    await expect
      .poll(() => item('Captain Varla').getAttribute('data-checked'), { timeout: 60_000 })
      .toBe('true');
    expect(await item('dragon').getAttribute('data-checked')).toBe('false');
    // Each with its moment: a link to the time in the session.
    const moments = checklist.locator('.prep-moment');
    await expect.poll(() => moments.count(), { timeout: 20_000 }).toBe(2);
    const hrefs = await moments.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs.every((h) => h?.startsWith(`/sessions/${transcriptId}#t=00:00:`))).toBe(true);
    // Said at 8.8 s (the innkeeper, 3rd turn) and later for the captain.
    expect(await moments.first().innerText()).toMatch(/innkeeper.*\[00:00:08\].*GM/s);
  }

  it('ticks the items said during a replayed session at 1280 px, then carries the rest forward', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const { groupId, checklist } = await prepare('Tal’Dorei');
    // The live viewer of the session, beside the planning page, shows the ticks too.
    const viewer = await page.context().newPage();
    await viewer.setViewportSize({ width: 1280, height: 800 });
    let viewerOpen: Promise<void> | undefined;
    const prepCard = viewer.locator('.prep-live-card');
    const run = replay(
      groupId,
      'Prep night',
      (tid) =>
        (viewerOpen ??= (async () => {
          await viewer.goto(`/sessions/${tid}`);
          await prepCard.getByRole('heading', { name: 'Prep so far (0 of 3)' }).waitFor({ timeout: 60_000 });
        })()),
    );
    await checklist.locator('.prep-live.is-live').waitFor({ timeout: 60_000 });
    await expectTicked(checklist, run.id());
    await page.screenshot({ path: `${SHOTS}/live-1280.png` });
    await prepCard.getByRole('heading', { name: 'Prep so far (2 of 3)' }).waitFor({ timeout: 30_000 });
    expect(await prepCard.locator('li.is-done').count()).toBe(2);
    expect(await prepCard.locator('a.prep-moment-link').first().getAttribute('href')).toBe(
      `/sessions/${run.id()}#t=00:00:08`,
    );
    await prepCard.screenshot({ path: `${SHOTS}/viewer-1280.png` });
    await viewer.close();

    run.end();
    await run.done;
    const review = checklist.locator('.prep-review');
    await review.getByRole('heading', { name: 'Planned and what happened' }).waitFor({ timeout: 60_000 });
    await review.getByRole('heading', { name: 'Came up (2)' }).waitFor();
    await review.getByRole('heading', { name: 'Did not come up (1)' }).waitFor();
    expect(await review.locator('.prep-missed').innerText()).toContain('dragon');
    await page.screenshot({ path: `${SHOTS}/review-1280.png` });
    await review.getByRole('button', { name: 'Carry 1 into the next plan' }).click();
    await review.getByText('Carried into the next plan: 1 item(s).').waitFor();
    // The next plan holds the dragon alone; the items that came up are closed with the session.
    await expect
      .poll(async () => checklist.locator('li.prep-task > div').allInnerTexts(), { timeout: 10_000 })
      .toEqual(['The dragon attacks the bridge at Highcliff']);
    const stored = await api<GroupPrep>('GET', `/groups/${groupId}/prep`);
    expect(stored.items.find((i) => i.text.includes('dragon'))!.carried_from).toEqual([run.id()]);
    await page.screenshot({ path: `${SHOTS}/carried-1280.png` });
    // The checklist found the live and the ended session in the campaign's own list; no
    // screen read the whole library (any list of it asked is one first page, `limit=` without `after=`).
    expect(lists.some((u) => u.searchParams.get('group_id') === groupId)).toBe(true);
    const wholeLibrary = (u: URL) =>
      !u.searchParams.has('group_id') && (!u.searchParams.has('limit') || u.searchParams.has('after'));
    expect(lists.filter(wholeLibrary).map(String)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('ticks them at 390 px too, without overflowing the page', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const { groupId, checklist } = await prepare('Exandria');
    const run = replay(groupId, 'Phone night');
    await checklist.locator('.prep-live.is-live').waitFor({ timeout: 60_000 });
    await expectTicked(checklist, run.id());
    await checklist.scrollIntoViewIfNeeded();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);
    await page.screenshot({ path: `${SHOTS}/live-390.png`, fullPage: true });
    await checklist.screenshot({ path: `${SHOTS}/checklist-390.png` });
    run.end();
    await run.done;
    await checklist.locator('.prep-review').waitFor({ timeout: 60_000 });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(errors).toEqual([]);
  });

  it("adds the planning AI's proposed items to the checklist from the chat", async () => {
    const group = await api<{ id: string }>('POST', '/groups', { name: 'Tal’Dorei' });
    await api('POST', '/transcripts/manual', {
      name: 'Arrival at Kraghammer',
      session_date: '2015-03-12T00:00:00.000Z',
      transcript: '[00:00:05] MATT: You arrive at the gates of Kraghammer.',
      summary: '## Open threads\n- The missing miners of the Greyspine mines',
      group_id: group.id,
    });
    await page.goto(`/groups/${group.id}/planning`);
    await page.getByRole('button', { name: 'OPEN DOC' }).click();
    await page.getByLabel('Planning message').fill('Add prep items for the next session');
    await page.getByRole('button', { name: 'Send' }).click();
    const chat = page.getByRole('region', { name: 'Planning chat' });
    await chat
      .getByText('✅ Added to the prep checklist: The missing miners of the Greyspine mines')
      .waitFor({ timeout: 60_000 });
    const item = page.locator('.prep li.prep-task', { hasText: 'The missing miners of the Greyspine mines' });
    await item.waitFor({ timeout: 20_000 });
    expect(await item.getAttribute('data-checked')).toBe('false');
    expect(errors).toEqual([]);
  });

  it('saves a line once when the user goes on typing in it while it is being saved', async () => {
    const group = await api<{ id: string }>('POST', '/groups', { name: 'Wildemount' });
    await page.goto(`/groups/${group.id}/planning`);
    await page.getByRole('button', { name: 'OPEN DOC' }).click();
    const editor = page.locator('.prep').getByRole('textbox', { name: 'Prepared items' });
    await editor.locator('li.prep-task p').first().click();
    // The first save of the line is held until more of it is typed.
    let held = () => {};
    const saving = new Promise<void>((resolve) => (held = resolve));
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const prepPath = `/api/groups/${group.id}/prep`;
    const isPrep = (url: URL) => url.pathname === prepPath;
    await page.route(isPrep, async (route) => {
      if (route.request().method() === 'POST') {
        held();
        await released;
      }
      await route.continue();
    });
    try {
      await page.keyboard.type('Ask the sage');
      await saving;
      await page.keyboard.type(' about the map');
      release();
      await expect
        .poll(
          async () => (await api<GroupPrep>('GET', `/groups/${group.id}/prep`)).items.map((i) => i.text),
          {
            timeout: 20_000,
          },
        )
        .toEqual(['Ask the sage about the map']);
      // And the checklist holds it once.
      await expect
        .poll(() => editor.locator('li.prep-task > div').allInnerTexts(), { timeout: 10_000 })
        .toEqual(['Ask the sage about the map']);
    } finally {
      release();
      await page.unroute(isPrep);
    }
    expect(errors).toEqual([]);
  });
});
