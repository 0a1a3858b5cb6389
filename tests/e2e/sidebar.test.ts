import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFitsPhone, launchBrowser, newPage, signInLocally } from '../support/browser.ts';
import { crd3Transcript } from '../support/crd3.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-sidebar';

/** The token the API accepts for the page's signed-in user. */
async function storedToken(page: Page): Promise<string> {
  const token = await page.evaluate(() =>
    // Runs in the page; the test project's TypeScript has no DOM types.
    (globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem(
      'auth_token',
    ),
  );
  return token ?? '';
}

function apiClient(baseUrl: string, token: string) {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${baseUrl}/api${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
}

/** Names shown in a list of the sidebar browser, in order. */
const names = (list: Locator) => list.locator('.browser-item-name').allTextContents();

describe('sidebar transcript browser', () => {
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let api: ReturnType<typeof apiClient>;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // Sessions keep the summaries the test gives them (summaries.test.ts covers automatic ones).
    system = await startSystem({ mode: 'embedded', env: { SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    await signInLocally(page, 'Keyleth');
    await page.waitForURL('**/welcome');
    api = apiClient(system.url, await storedToken(page));
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  const sidebar = () => page.getByRole('complementary', { name: 'Sidebar' });
  const search = () => sidebar().getByRole('searchbox');

  it('groups view: empty text, then refresh shows groups and ungrouped transcripts in order, searchable', async () => {
    await sidebar().getByText('No groups or transcripts yet.', { exact: true }).waitFor();
    expect(await search().getAttribute('placeholder')).toBe('Search groups or transcripts...');

    // Data arrives behind the page's back: only Refresh brings it in.
    const group = await api<{ id: string }>('POST', '/groups', { name: 'Vox Machina' });
    ids.vox = group.id;
    const create = async (key: string, body: Record<string, unknown>) => {
      ids[key] = (await api<{ id: string }>('POST', '/transcripts/manual', body)).id;
    };
    await create('kraghammer', {
      name: 'Arrival at Kraghammer',
      session_date: '2026-01-10T19:00:00Z',
      transcript: crd3Transcript('C1E001', { timed: true, maxChars: 20_000 }),
    });
    await create('feywild', {
      name: 'The Feywild Crossing',
      session_date: '2026-03-14T19:00:00Z',
      transcript: crd3Transcript('C1E022', { timed: true, maxChars: 20_000 }),
    });
    await create('recap', {
      name: 'Recap Night',
      session_date: '2026-02-01T19:00:00Z',
      summary: 'The party retells the fall of the Briarwoods over dinner.',
    });
    await create('whitestone', {
      name: 'Whitestone Siege',
      session_date: '2026-02-07T19:00:00Z',
      group_id: ids.vox,
      transcript: crd3Transcript('C1E056', { timed: true, maxChars: 20_000 }),
    });
    await create('underdark', {
      name: 'Into the Underdark',
      session_date: '2026-01-20T19:00:00Z',
      group_id: ids.vox,
      transcript: crd3Transcript('C1E005', { timed: true, maxChars: 20_000 }),
    });
    // The oldest ungrouped session is being recorded right now: it leads the list.
    await system.platform!.db.query("update transcript.transcripts set status = 'active' where id = $1", [
      ids.kraghammer,
    ]);
    expect(await sidebar().getByText('Arrival at Kraghammer').count()).toBe(0);

    await sidebar().getByRole('button', { name: 'Refresh Transcripts' }).click();
    const groupsList = sidebar().getByRole('region', { name: 'Groups' });
    const ungroupedList = sidebar().getByRole('region', { name: 'Ungrouped Transcripts' });
    await ungroupedList.getByText('Arrival at Kraghammer').waitFor();
    await expect.poll(() => names(groupsList)).toEqual(['Vox Machina']);
    await groupsList.getByText('2 sessions', { exact: true }).waitFor();
    await expect
      .poll(() => names(ungroupedList))
      .toEqual(['Arrival at Kraghammer', 'The Feywild Crossing', 'Recap Night']);

    const item = (name: string) => ungroupedList.getByRole('link', { name: new RegExp(`^${name}`) });
    expect(await item('Arrival at Kraghammer').locator('.session-badge').allTextContents()).toEqual(['Live']);
    expect(await item('The Feywild Crossing').locator('.session-badge').count()).toBe(0);
    const firstLine = crd3Transcript('C1E022', { turns: 1, timed: true });
    const preview = await item('The Feywild Crossing').locator('.browser-item-preview').textContent();
    expect(firstLine.startsWith(preview!.replace(/\.\.\.$|…$/, '').slice(0, 60))).toBe(true);
    expect(await item('Recap Night').locator('.browser-item-preview').textContent()).toBe(
      'No preview available',
    );
    expect(await item('The Feywild Crossing').locator('.browser-item-meta').textContent()).toMatch(
      /^Mar 1[45], 2026, \d{1,2}:\d{2} [AP]M$/,
    );

    // Search: names of groups and transcripts, previews of transcripts, any case.
    await search().fill('FEYWILD');
    await expect.poll(() => names(sidebar())).toEqual(['The Feywild Crossing']);
    await search().fill('vox');
    await expect.poll(() => names(sidebar())).toEqual(['Vox Machina']);
    const previewWord = firstLine.split(' ').slice(3, 5).join(' ').toLowerCase();
    await search().fill(previewWord);
    await expect.poll(() => names(sidebar())).toContain('The Feywild Crossing');
    await search().fill('beholder lair');
    await sidebar().getByText('No matching groups or transcripts found.', { exact: true }).waitFor();
    expect(await sidebar().locator('.browser-item').count()).toBe(0);
    await search().fill('');
    await expect
      .poll(() => names(ungroupedList))
      .toEqual(['Arrival at Kraghammer', 'The Feywild Crossing', 'Recap Night']);

    await page.screenshot({ path: `${SHOTS}/sidebar-groups-1280.png` });

    // Opening an ungrouped transcript keeps the groups view and marks it as the open one.
    await item('The Feywild Crossing').click();
    await page.waitForURL(`**/sessions/${ids.feywild}`);
    await expect.poll(() => item('The Feywild Crossing').getAttribute('aria-current')).toBe('page');
    expect(await item('Recap Night').getAttribute('aria-current')).toBeNull();
    expect(await search().getAttribute('placeholder')).toBe('Search groups or transcripts...');
  });

  it("sessions view: a group's transcripts follow the route, with both back buttons", async () => {
    await sidebar()
      .getByRole('link', { name: /^Vox Machina/ })
      .click();
    await page.waitForURL(`**/groups/${ids.vox}`);
    const view = sidebar().getByRole('region', { name: 'Vox Machina' });
    await view.waitFor();
    expect(await search().getAttribute('placeholder')).toBe('Search transcripts in group...');
    await expect.poll(() => names(view)).toEqual(['Whitestone Siege', 'Into the Underdark']);
    expect(await view.getByRole('button', { name: 'Back to Group Dashboard' }).count()).toBe(0);

    await search().fill('WHITESTONE');
    await expect.poll(() => names(view)).toEqual(['Whitestone Siege']);
    await search().fill('Kraghammer');
    await view.getByText('No matching transcripts found in this group.', { exact: true }).waitFor();
    await search().fill('');

    // A transcript of the group: still this group's view, now with a way back to its dashboard.
    await view.getByRole('link', { name: /^Whitestone Siege/ }).click();
    await page.waitForURL(`**/sessions/${ids.whitestone}`);
    await expect
      .poll(() => view.getByRole('link', { name: /^Whitestone Siege/ }).getAttribute('aria-current'))
      .toBe('page');
    await page.screenshot({ path: `${SHOTS}/sidebar-sessions-1280.png` });
    await view.getByRole('button', { name: 'Back to Group Dashboard' }).click();
    await page.waitForURL(`**/groups/${ids.vox}`);
    await view.getByRole('button', { name: 'Back to Group Dashboard' }).waitFor({ state: 'detached' });

    // Back to Groups switches the view without leaving the page; the group stays marked.
    await view.getByRole('button', { name: 'Back to Groups' }).click();
    await sidebar().getByRole('region', { name: 'Groups' }).waitFor();
    expect(page.url()).toBe(`${system.url}/groups/${ids.vox}`);
    expect(await search().getAttribute('placeholder')).toBe('Search groups or transcripts...');
    expect(
      await sidebar()
        .getByRole('link', { name: /^Vox Machina/ })
        .getAttribute('aria-current'),
    ).toBe('page');

    // A direct visit to a grouped transcript, and ?group= on any page, select the group.
    await page.goto(`/sessions/${ids.underdark}`);
    await view.getByRole('button', { name: 'Back to Group Dashboard' }).waitFor();
    await page.goto(`/?group=${ids.vox}`);
    await view.waitFor();
    await expect.poll(() => names(view)).toEqual(['Whitestone Siege', 'Into the Underdark']);
    await sidebar().getByRole('link', { name: 'Dashboard' }).click();
    await page.waitForURL(`${system.url}/`);
    await sidebar().getByRole('region', { name: 'Groups' }).waitFor();

    // A group without sessions.
    const empty = await api<{ id: string }>('POST', '/groups', { name: 'Mighty Nein' });
    await sidebar().getByRole('button', { name: 'Refresh Transcripts' }).click();
    await sidebar()
      .getByRole('link', { name: /^Mighty Nein/ })
      .click();
    await page.waitForURL(`**/groups/${empty.id}`);
    await sidebar()
      .getByRole('region', { name: 'Mighty Nein' })
      .getByText('No transcripts in this group.', { exact: true })
      .waitFor();
  });

  it('the collapsed rail hides the browser; expanding brings it back', async () => {
    await page.goto('/');
    await search().waitFor();
    await sidebar().getByRole('button', { name: 'Collapse sidebar' }).click();
    await search().waitFor({ state: 'detached' });
    expect(await sidebar().getByRole('button', { name: 'Refresh Transcripts' }).count()).toBe(0);
    await sidebar().getByRole('button', { name: 'Expand sidebar' }).click();
    await search().waitFor();
    expect(errors).toEqual([]);
  });

  it('on a 390 px phone the browser works inside the drawer, which closes after navigating', async () => {
    const context = await browser.newContext({
      baseURL: system.url,
      viewport: { width: 390, height: 844 },
      storageState: await page.context().storageState(),
    });
    const phone = await context.newPage();
    const phoneErrors: Error[] = [];
    phone.on('pageerror', (err) => phoneErrors.push(err));
    await phone.goto('/');
    const drawer = phone.getByRole('complementary', { name: 'Sidebar' });
    await phone.getByRole('heading', { name: 'Your Dashboard' }).waitFor();
    expect(await drawer.isVisible()).toBe(false);

    await phone.getByRole('button', { name: 'Open sidebar' }).click();
    await drawer.getByRole('searchbox').waitFor({ state: 'visible' });
    await drawer.getByRole('searchbox').fill('recap');
    await expect.poll(() => names(drawer)).toEqual(['Recap Night']);
    await drawer.getByRole('searchbox').fill('');
    await drawer.getByText('Arrival at Kraghammer').waitFor();
    await expectFitsPhone(phone);
    await phone.screenshot({ path: `${SHOTS}/sidebar-drawer-390.png` });

    await drawer.getByRole('link', { name: /^Vox Machina/ }).click();
    await phone.waitForURL(`**/groups/${ids.vox}`);
    await drawer.waitFor({ state: 'hidden' });
    // Reopened, the drawer shows the group's sessions, and picking one closes it again.
    await phone.getByRole('button', { name: 'Open sidebar' }).click();
    const view = drawer.getByRole('region', { name: 'Vox Machina' });
    await view.getByRole('link', { name: /^Into the Underdark/ }).click();
    await phone.waitForURL(`**/sessions/${ids.underdark}`);
    await drawer.waitFor({ state: 'hidden' });
    expect(phoneErrors).toEqual([]);
    await context.close();
  });

  it('a long list is read a page at a time and virtualised; scrolling loads the rest, the open one always shown', async () => {
    for (let i = 1; i <= 60; i++) {
      const name = `Bulk night ${String(i).padStart(2, '0')}`;
      await api<{ id: string }>('POST', '/transcripts/manual', {
        name,
        session_date: `2025-0${1 + (i % 9)}-${String(1 + (i % 28)).padStart(2, '0')}T19:00:00Z`,
        transcript: 'MATT: a short night.',
      });
    }
    const requests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/transcripts') requests.push(request.url());
    });
    await page.goto('/');
    await sidebar().getByRole('button', { name: 'Refresh Transcripts' }).click();
    await search().fill('bulk night');
    const list = sidebar().getByRole('region', { name: 'Ungrouped Transcripts' });
    const matches = await api<{ id: string; name: string }[]>('GET', '/transcripts?limit=200&q=bulk%20night');
    expect(matches).toHaveLength(60);
    await list.getByText(matches[0]!.name, { exact: true }).waitFor();
    // The server searched: the browser asked for the matches, a page of them.
    await expect
      .poll(() => requests.some((url) => new URL(url).searchParams.get('q') === 'bulk night'))
      .toBe(true);
    const sidebarAsks = requests.map((url) => new URL(url).searchParams).filter((q) => q.has('ungrouped'));
    expect(sidebarAsks.every((q) => q.get('limit') === '50')).toBe(true);
    // Only the rows near the visible part of the sidebar are in the page.
    expect(await list.locator('.browser-item-name').count()).toBeLessThan(30);

    // Scrolling the sidebar to the end loads and shows the last match.
    const last = matches.at(-1)!;
    await expect
      .poll(
        async () => {
          await sidebar().evaluate((el) => el.scrollTo(0, el.scrollHeight));
          return list.getByText(last.name, { exact: true }).count();
        },
        { timeout: 20_000 },
      )
      .toBe(1);
    await sidebar()
      .getByRole('button', { name: /Load more transcripts/ })
      .waitFor({ state: 'detached' });
    expect(await list.locator('.browser-item-name').count()).toBeLessThan(30);

    // A session far down the list, opened by its address, is shown (and marked current).
    await search().fill('');
    await page.goto(`/sessions/${last.id}`);
    await sidebar().locator('[aria-current="page"]', { hasText: last.name }).waitFor();
    await page.screenshot({ path: `${SHOTS}/sidebar-long-list-1280.png` });
    expect(errors).toEqual([]);
  });
});
