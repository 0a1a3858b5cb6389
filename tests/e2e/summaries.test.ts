import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSignIn } from '../support/auth.ts';
import { expectFitsPhone, launchBrowser, newPage, signInLocally } from '../support/browser.ts';
import { markdownToPlainText } from '../../web/src/features/groups/session-data.ts';
import { crd3Transcript } from '../support/crd3.ts';
import { startSystem, waitFor, type TestSystem } from '../support/system.ts';

interface Session {
  id: string;
  summary: string;
}
interface Group {
  id: string;
  summary: string;
  llm_summary: string;
  summary_generated_at: string;
}

describe('summaries in the browser (offline engine)', () => {
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let token: string;
  let userId: string;

  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${system.url}/api${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
  const main = () => page.getByRole('main');

  beforeAll(async () => {
    system = await startSystem({ mode: 'embedded', env: { AUTH_LOCAL_ENABLED: 'true' } });
    // The account exists before the browser signs in, so it signs in as an admin.
    const first = await localSignIn(system.url, 'Keyleth');
    userId = first.body.user?.id ?? '';
    await system.platform!.db.query('update auth.users set is_admin = true where id = $1', [userId]);
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    await signInLocally(page, 'Keyleth');
    await page.waitForURL('**/welcome');
    token = (await localSignIn(system.url, 'Keyleth')).cookie;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('generates a session summary, then replaces it after the Replace Summary? confirmation', async () => {
    // Written to the table directly: a session made through the API would get its automatic
    // summary at once, and this test wants one without.
    const [row] = await system.platform!.db.query<{ id: string }>(
      `insert into transcript.transcripts (owner_id, name, status, source, content, preview)
       values ($1, 'Arrival at Kraghammer', 'ended', 'manual', $2, '') returning id`,
      [userId, crd3Transcript('C1E001', { timed: true, maxChars: 8000 })],
    );
    await page.goto(`/sessions/${row!.id}`);
    const section = main().locator('section', {
      has: page.getByRole('heading', { name: 'Summary', exact: true }),
    });
    await section.getByText('No summary available').waitFor();
    await section.getByRole('button', { name: 'Generate Summary' }).click();
    await page.getByText('Summary generated successfully').waitFor();
    const text = section.locator('.viewer-summary-text');
    await text.waitFor();
    const first = (await api<Session>('GET', `/transcripts/${row!.id}`)).summary;
    expect(first.length).toBeGreaterThan(20);
    // The offline digest is markdown (quoted lines with links to their moments), shown formatted
    // under its notice, which says how to connect a model.
    expect(first).toMatch(
      new RegExp(`\\[\\[\\d\\d:\\d\\d:\\d\\d\\]\\]\\(/sessions/${row!.id}#t=\\d\\d:\\d\\d:\\d\\d\\)`),
    );
    expect(await text.locator('li').count()).toBe(first.split('\n').filter((l) => l.startsWith('- ')).length);
    const notice = text.locator('.offline-notice');
    expect(await notice.count()).toBe(1);
    expect(await notice.innerText()).toContain('OPENAI_BASE_URL and OPENAI_MODEL');
    expect(await notice.innerText()).toContain('Connecting an AI model');
    await page.screenshot({ path: '/tmp/shots-h34/summary-offline-1280.png' });
    await page.setViewportSize({ width: 390, height: 844 });
    await section.scrollIntoViewIfNeeded();
    await expectFitsPhone(page);
    await page.screenshot({ path: '/tmp/shots-h34/summary-offline-390.png' });
    await page.setViewportSize({ width: 1280, height: 800 });

    // Edit by hand, then regenerate: the confirmation comes first, Cancel keeps the edit.
    await api('PUT', `/transcripts/${row!.id}/summary`, { summary: 'Edited by hand.' });
    await page.reload();
    await section.getByText('Edited by hand.').waitFor();
    await section.getByRole('button', { name: 'Regenerate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replace Summary?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await api<Session>('GET', `/transcripts/${row!.id}`)).summary).toBe('Edited by hand.');

    await section.getByRole('button', { name: 'Regenerate' }).click();
    await dialog.getByRole('button', { name: 'Replace' }).click();
    await page.getByText('Summary generated successfully').first().waitFor();
    await section.getByText('Edited by hand.').waitFor({ state: 'detached' });
    const replaced = (await api<Session>('GET', `/transcripts/${row!.id}`)).summary;
    expect(replaced).not.toBe('Edited by hand.');
    // The new summary is the one shown: each of its quoted lines is a list item on screen.
    const items = replaced.split('\n').filter((l) => l.startsWith('- '));
    const shown = (l: string) =>
      l
        .slice(2)
        .trim()
        .replace(/\[(\[[^\]]+\])\]\([^)]*\)/g, '$1')
        .replace(/\*\*([^*]+)\*\*/g, '$1');
    expect(await text.locator('li').allInnerTexts()).toEqual(items.map(shown));

    // Admins see the raw AI text.
    const llm = main().locator('section', {
      has: page.getByRole('heading', { name: 'LLM Summary (Admin Only)' }),
    });
    await llm.getByRole('button', { name: /LLM Summary \(Admin Only\)/ }).click();
    await llm.locator('.summary-llm-text').waitFor();
    expect((await llm.locator('.summary-llm-text').innerText()).length).toBeGreaterThan(20);
    expect(errors).toEqual([]);
  });

  it('updates a campaign summary on load, and an admin regenerates it after the confirmation', async () => {
    const group = await api<Group>('POST', '/groups', { name: 'Vox Machina' });
    for (const [name, date, summary] of [
      [
        'Arrival at Kraghammer',
        '2015-03-12T19:00:00Z',
        'The party arrives in Kraghammer and meets its king.',
      ],
      ['Into the Mines', '2015-03-19T19:00:00Z', 'They descend into the Greyspine mines and fight duergar.'],
    ]) {
      await api('POST', '/transcripts/manual', { name, session_date: date, summary, group_id: group.id });
    }
    await page.goto(`/groups/${group.id}`);
    await page.getByText('Campaign summary updated automatically!').waitFor();
    const stored = (await api<Group[]>('GET', '/groups')).find((g) => g.id === group.id)!;
    expect(stored.summary.length).toBeGreaterThan(20);
    const shown = main().locator('.group-summary-text').first();
    await shown.waitFor();
    // The collapsed preview is the summary's words without markup characters, cut at 200.
    const words = (t: string) => t.replace(/\s+/g, ' ').trim();
    const preview = words((await shown.innerText()).replace(/\.\.\.$/, ''));
    expect(preview).not.toMatch(/\*\*|\]\(|^_|^#/);
    expect(words(markdownToPlainText(stored.summary)).startsWith(preview)).toBe(true);

    await main().getByRole('button', { name: 'Regenerate Summary' }).click();
    const dialog = page.getByRole('dialog', { name: 'Regenerate Summary' });
    await dialog
      .getByText(
        'This campaign already has a summary. Generating a new summary will permanently replace the existing one and cannot be undone. Continue?',
      )
      .waitFor();
    await dialog.getByRole('button', { name: 'Regenerate' }).click();
    await page.getByText('Campaign summary generated successfully!').waitFor();
    const after = (await api<Group[]>('GET', '/groups')).find((g) => g.id === group.id)!;
    expect(Date.parse(after.summary_generated_at)).toBeGreaterThanOrEqual(
      Date.parse(stored.summary_generated_at),
    );
    // Two generations in all: the automatic one on load and the admin's (one usage record each).
    const campaignRecords = async () =>
      Number(
        (
          await system.platform!.db.query<{ n: string | number }>(
            `select count(*) as n from admin_stats.ai_requests where user_id = $1 and request_type = 'campaign_summary'`,
            [userId],
          )
        )[0]?.n ?? 0,
      );
    await waitFor(async () => (await campaignRecords()) >= 2);
    expect(await campaignRecords()).toBe(2);

    await main().getByRole('button', { name: 'LLM Campaign Summary (Admin)' }).click();
    // The panel renders the markdown: look for its words, not its markup characters.
    await main().getByText(markdownToPlainText(after.llm_summary).slice(0, 40)).first().waitFor();
    expect(errors).toEqual([]);
  });
});
