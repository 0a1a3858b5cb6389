import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectFitsPhone,
  launchBrowser,
  newPage,
  pageScrollWidth,
  signInLocally,
} from '../support/browser.ts';
import { crd3Blurb, crd3Transcript } from '../support/crd3.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-sidebar';

interface Group {
  id: string;
  name: string;
  summary?: string;
}

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
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${baseUrl}/api${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  const json = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await send(method, path, body);
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
  return { send, json };
}

async function signedInUser(browser: Browser, system: TestSystem, name: string) {
  const { page, errors } = await newPage(browser, system.url);
  await signInLocally(page, name);
  await page.waitForURL('**/welcome');
  return { page, errors, api: apiClient(system.url, await storedToken(page)) };
}

describe('group dashboard', () => {
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let api: ReturnType<typeof apiClient>;
  let vox: Group;
  const ids: Record<string, string> = {};
  const whitestoneSummary = crd3Blurb('C1E056');

  beforeAll(async () => {
    // Sessions keep the summaries the test gives them (summaries.test.ts covers automatic ones).
    system = await startSystem({ mode: 'embedded', env: { SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser();
    ({ page, errors, api } = await signedInUser(browser, system, 'Percival'));

    vox = await api.json<Group>('POST', '/groups', { name: 'Vox Machina' });
    const create = async (key: string, body: Record<string, unknown>) => {
      ids[key] = (
        await api.json<{ id: string }>('POST', '/transcripts/manual', { group_id: vox.id, ...body })
      ).id;
    };
    await create('whitestone', {
      name: 'Whitestone Siege',
      session_date: '2026-02-07T19:00:00Z',
      summary: whitestoneSummary,
      transcript: crd3Transcript('C1E056', { timed: true, maxChars: 20_000 }),
    });
    await create('underdark', {
      name: 'Into the Underdark',
      session_date: '2026-01-20T19:00:00Z',
      transcript: crd3Transcript('C1E005', { timed: true, maxChars: 20_000 }),
    });
    await create('live', {
      name: 'The Sunken Tomb',
      session_date: '2026-03-21T19:00:00Z',
      transcript: crd3Transcript('C1E022', { timed: true, maxChars: 5_000 }),
    });
    await create('upload', {
      name: 'Recording from the Tavern',
      session_date: '2026-01-02T19:00:00Z',
      summary: 'Uploaded recording of a short tavern scene.',
    });
    const db = system.platform!.db;
    await db.query("update transcript.transcripts set status = 'active' where id = $1", [ids.live]);
    await db.query(
      "update transcript.transcripts set source = 'audio', transcription_status = 'failed', transcription_error = $2 where id = $1",
      [ids.upload, 'The recording contains no speech.'],
    );
    // A session of no group stays off this group's page.
    await api.json('POST', '/transcripts/manual', {
      name: 'Arrival at Kraghammer',
      session_date: '2026-01-10T19:00:00Z',
      transcript: crd3Transcript('C1E001', { timed: true, maxChars: 5_000 }),
    });
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  const main = () => page.locator('#main-content');
  const card = (name: string) =>
    main().locator('.session-card', { has: page.getByRole('heading', { name }) });

  it('shows the count, the session cards newest first with their texts, and opens transcripts', async () => {
    await page.goto(`/groups/${vox.id}`);
    await main().getByRole('heading', { name: 'Vox Machina', level: 1 }).waitFor();
    await main().getByText('4 session(s)', { exact: true }).waitFor();
    expect(await main().locator('.session-card-title').allTextContents()).toEqual([
      'The Sunken Tomb',
      'Whitestone Siege',
      'Into the Underdark',
      'Recording from the Tavern',
    ]);
    expect(await main().getByText('Arrival at Kraghammer').count()).toBe(0);

    const summaryOf = (name: string) => card(name).locator('.session-card-summary').textContent();
    expect(await summaryOf('The Sunken Tomb')).toBe(
      'Summary is not available while the session is in progress.',
    );
    expect(await summaryOf('Into the Underdark')).toBe('No summary available');
    const cut = await summaryOf('Whitestone Siege');
    expect(whitestoneSummary.length).toBeGreaterThan(200);
    expect(cut!.endsWith('...')).toBe(true);
    expect(whitestoneSummary.startsWith(cut!.slice(0, -3))).toBe(true);
    expect(cut!.length).toBeLessThanOrEqual(203);

    expect(await card('The Sunken Tomb').locator('.session-badge').allTextContents()).toEqual(['Live']);
    expect(await card('Whitestone Siege').locator('.session-badge').allTextContents()).toEqual(['Ended']);
    expect(await card('Recording from the Tavern').locator('.session-badge').allTextContents()).toEqual([
      'Ended',
      'Transcription failed: The recording contains no speech.',
    ]);
    await card('Recording from the Tavern')
      .getByText('The recording contains no speech.', { exact: true })
      .waitFor();
    await card('Whitestone Siege').getByText('Feb 7, 2026', { exact: true }).waitFor();

    expect(await main().getByRole('link', { name: 'Add Session' }).getAttribute('href')).toBe(
      `/groups/${vox.id}/add-session`,
    );
    expect(await main().getByRole('link', { name: 'Enter Planning Mode' }).getAttribute('href')).toBe(
      `/groups/${vox.id}/planning`,
    );
    await page.screenshot({ path: `${SHOTS}/group-dashboard-1280.png`, fullPage: true });

    await card('Whitestone Siege').getByRole('button', { name: 'View Transcript' }).click();
    await page.waitForURL(`**/sessions/${ids.whitestone}`);
    await page.goBack();
    await card('Into the Underdark').getByRole('button', { name: 'Into the Underdark' }).click();
    await page.waitForURL(`**/sessions/${ids.underdark}`);

    // Refresh brings in what changed elsewhere.
    await page.goto(`/groups/${vox.id}`);
    await main().getByText('4 session(s)', { exact: true }).waitFor();
    await api.json('DELETE', `/transcripts/${ids.underdark}/remove-group`);
    await main().getByRole('button', { name: 'Refresh' }).click();
    await main().getByText('3 session(s)', { exact: true }).waitFor();
    expect(await card('Into the Underdark').count()).toBe(0);
    await api.json('PUT', `/transcripts/${ids.underdark}/assign-group`, { group_id: vox.id });
  });

  it('renames the group: blank is refused, Cancel keeps the name, Save stores it everywhere', async () => {
    await page.goto(`/groups/${vox.id}`);
    const heading = main().getByRole('heading', { level: 1 });
    await heading.getByText('Vox Machina').waitFor();
    await main().getByRole('button', { name: 'Edit group name' }).click();
    const input = main().getByRole('textbox', { name: 'Group name' });
    expect(await input.inputValue()).toBe('Vox Machina');
    const save = main().getByRole('button', { name: 'Save', exact: true });

    await input.fill('   ');
    expect(await save.isDisabled()).toBe(true);
    await input.press('Enter');
    await main().getByRole('button', { name: 'Cancel' }).click();
    expect(await heading.textContent()).toBe('Vox Machina');
    expect((await api.json<Group[]>('GET', '/groups')).map((g) => g.name)).toEqual(['Vox Machina']);

    await main().getByRole('button', { name: 'Edit group name' }).click();
    await input.fill('  Vox Machina of Emon  ');
    await save.click();
    await page.getByText('Group updated successfully', { exact: true }).waitFor();
    await heading.getByText('Vox Machina of Emon', { exact: true }).waitFor();
    expect((await api.json<Group[]>('GET', '/groups')).map((g) => g.name)).toEqual(['Vox Machina of Emon']);
    // The sidebar reads the same cache: the new name shows there at once.
    await page
      .getByRole('complementary', { name: 'Sidebar' })
      .getByRole('heading', { name: 'Vox Machina of Emon' })
      .waitFor();
  });

  it('edits the campaign summary: cancel, save, preview cut at 200 with show more, collapse', async () => {
    await page.goto(`/groups/${vox.id}`);
    const section = main().locator('section', {
      has: page.getByRole('button', { name: 'Campaign Summary' }),
    });
    await section.getByText('No campaign summary yet.', { exact: true }).waitFor();
    const text = crd3Blurb('C1E001');
    expect(text.length).toBeGreaterThan(200);

    await section.getByRole('button', { name: 'Edit' }).click();
    const field = section.getByRole('textbox', { name: 'Campaign summary' });
    await field.fill('Something not kept.');
    await section.getByRole('button', { name: 'Cancel' }).click();
    await section.getByText('No campaign summary yet.', { exact: true }).waitFor();

    await section.getByRole('button', { name: 'Edit' }).click();
    await field.fill(text);
    await section.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Group updated successfully', { exact: true }).first().waitFor();
    const shown = section.locator('.group-summary-text');
    await shown.waitFor();
    const preview = await shown.textContent();
    expect(preview).toBe(`${text.slice(0, 200).trimEnd()}...`);
    expect((await api.json<Group[]>('GET', '/groups'))[0]!.summary).toBe(text);

    await section.getByRole('button', { name: 'Show more' }).click();
    expect(await shown.textContent()).toBe(text);
    await section.getByRole('button', { name: 'Show less' }).click();
    expect(await shown.textContent()).toBe(preview);

    const toggle = section.getByRole('button', { name: 'Campaign Summary' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await shown.isVisible()).toBe(false);
    await toggle.click();
    expect(await shown.isVisible()).toBe(true);
  });

  it('an empty group, and moving to another group closes the editors', async () => {
    const empty = await api.json<Group>('POST', '/groups', { name: 'Mighty Nein' });
    await page.goto(`/groups/${vox.id}`);
    await main().getByRole('button', { name: 'Edit group name' }).click();
    await main().getByRole('textbox', { name: 'Group name' }).fill('Half typed');
    await main().getByRole('button', { name: 'Edit', exact: true }).click();
    await main().getByRole('textbox', { name: 'Campaign summary' }).waitFor();

    await page
      .getByRole('complementary', { name: 'Sidebar' })
      .getByRole('button', { name: 'Back to Groups' })
      .click();
    await page
      .getByRole('complementary', { name: 'Sidebar' })
      .getByRole('link', { name: /^Mighty Nein/ })
      .click();
    await page.waitForURL(`**/groups/${empty.id}`);
    await main().getByRole('heading', { name: 'Mighty Nein', level: 1 }).waitFor();
    // The editors are closed (the question box of 'Ask the Campaign' is no editor).
    expect(
      await main()
        .getByRole('textbox', { name: /^(Group name|Campaign summary)$/ })
        .count(),
    ).toBe(0);
    await main().getByText('0 session(s)', { exact: true }).waitFor();
    await main().getByText('No sessions in this group yet', { exact: true }).waitFor();
    await main().getByText('No campaign summary yet.', { exact: true }).waitFor();
  });

  it('a failed summary save shows the error toast and keeps the editor', async () => {
    const doomed = await api.json<Group>('POST', '/groups', { name: 'Slayer’s Take' });
    await page.goto(`/groups/${doomed.id}`);
    await main().getByRole('heading', { name: 'Slayer’s Take', level: 1 }).waitFor();
    await main().getByRole('button', { name: 'Edit', exact: true }).click();
    await main().getByRole('textbox', { name: 'Campaign summary' }).fill('Hunting the Briarwoods.');
    // Deleted elsewhere in the meantime: the server answers 404.
    await api.json('DELETE', `/groups/${doomed.id}`);
    await main().getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Failed to update group', { exact: true }).waitFor();
    expect(await main().getByRole('textbox', { name: 'Campaign summary' }).inputValue()).toBe(
      'Hunting the Briarwoods.',
    );
  });

  it("another user's group id shows 'Group not found' with a way back", async () => {
    const other = await signedInUser(browser, system, 'Scanlan');
    const theirs = await other.api.json<Group>('POST', '/groups', { name: 'Bad News Bards' });
    expect((await api.send('PUT', `/groups/${theirs.id}`, { name: 'Mine now' })).status).toBe(404);

    await page.goto(`/groups/${theirs.id}`);
    await main().getByRole('heading', { name: 'Group not found', level: 1 }).waitFor();
    expect(await page.getByText('Bad News Bards').count()).toBe(0);
    await main().getByRole('link', { name: 'Back to Dashboard' }).click();
    await page.waitForURL(`${system.url}/`);
    expect((await other.api.json<Group[]>('GET', '/groups')).map((g) => g.name)).toEqual(['Bad News Bards']);
    expect([...errors, ...other.errors]).toEqual([]);
  });

  it('a campaign with many sessions shows a page of cards and loads the next as the user reaches the end', async () => {
    const group = await api.json<Group>('POST', '/groups', { name: 'The Long Campaign' });
    const [owner] = await system.platform!.db.query<{ owner_id: string }>(
      'select owner_id from transcript.transcripts where id = $1',
      [ids.live],
    );
    await system.platform!.db.query(
      `insert into transcript.transcripts (owner_id, group_id, name, session_timestamp, content, preview, summary, source)
       select $1::uuid, $2::uuid, 'Long night ' || lpad(g::text, 2, '0'), timestamptz '2024-01-01' + g * interval '1 day',
              '', '', 'The party rests.', 'manual'
         from generate_series(1, 30) g`,
      [owner!.owner_id, group.id],
    );
    await page.goto(`/groups/${group.id}`);
    await main().getByText('30 session(s)', { exact: true }).waitFor();
    await card('Long night 30').waitFor();
    // One page of cards, newest first; the rest follow when the end of the cards comes into view.
    expect(await main().locator('.session-card').count()).toBe(24);
    await main().getByRole('button', { name: 'Load more sessions' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/group-dashboard-load-more-1280.png` });
    await card('Long night 01').waitFor();
    expect(await main().locator('.session-card').count()).toBe(30);
    await main()
      .getByRole('button', { name: /Load more sessions/ })
      .waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  });

  it('fits a 390 px phone', async () => {
    const context = await browser.newContext({
      baseURL: system.url,
      viewport: { width: 390, height: 844 },
      storageState: await page.context().storageState(),
    });
    const phone = await context.newPage();
    await phone.goto(`/groups/${vox.id}`);
    await phone.getByRole('heading', { name: 'Vox Machina of Emon', level: 1 }).waitFor();
    await phone.locator('.session-card').first().waitFor();
    expect(await pageScrollWidth(phone)).toBeLessThanOrEqual(390);
    await expectFitsPhone(phone);
    await phone.screenshot({ path: `${SHOTS}/group-dashboard-390.png`, fullPage: true });
    await context.close();
  });
});
