import { transcriptionRecordedEvent } from '@chronicler/contracts';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectFitsPhone,
  launchBrowser,
  newPage,
  pageScrollWidth,
  signInLocally,
} from '../support/browser.ts';
import { startSystem, waitFor, type TestSystem } from '../support/system.ts';

const visible = (page: Page, text: string) => page.getByText(text, { exact: true }).first().waitFor();

const storedUserId = async (page: Page): Promise<string> => {
  const raw = await page.evaluate(() =>
    // Runs in the page; the test project's TypeScript has no DOM types.
    (globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem(
      'auth_user',
    ),
  );
  return (JSON.parse(raw ?? '{}') as { id: string }).id;
};

describe('dashboard (fresh embedded start)', () => {
  let system: TestSystem;
  let browser: Browser;
  beforeAll(async () => {
    system = await startSystem({ mode: 'embedded' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('shows empty texts and stats, creates a group, lists recent sessions, deletes the group', async () => {
    const { page, errors } = await newPage(browser, system.url);
    await signInLocally(page, 'Vex');
    await page.waitForURL('**/welcome');
    await page.goto('/');

    // A new user: nothing yet, and no usage in the last 30 days.
    await page.getByRole('heading', { name: 'Your Dashboard', level: 1 }).waitFor();
    await visible(page, "You don't have any sessions yet.");
    await visible(page, 'Quick Actions');
    expect(await page.getByRole('link', { name: 'New Session' }).getAttribute('href')).toBe('/add-session');
    expect(await page.getByText('Your Groups', { exact: true }).count()).toBe(0);
    const statValue = (label: string) =>
      page.locator('.stat-card', { has: page.getByText(label, { exact: true }) }).locator('.stat-value');
    await expect.poll(() => statValue('Transcription Time (30 days)').getAttribute('aria-busy')).toBeNull();
    expect(await statValue('Transcription Time (30 days)').textContent()).toBe('0.0');
    expect(await statValue('AI Requests (30 days)').textContent()).toBe('0');

    // Create a group through the modal.
    await page.getByRole('button', { name: 'New Group' }).click();
    const createDialog = page.getByRole('dialog', { name: 'Create New Group' });
    await createDialog.waitFor();
    const nameInput = createDialog.getByLabel('Group name');
    await expect
      .poll(() =>
        nameInput.evaluate((el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement),
      )
      .toBe(true);
    const createButton = createDialog.getByRole('button', { name: 'Create' });
    expect(await createButton.isDisabled()).toBe(true);
    await nameInput.fill('   ');
    expect(await createButton.isDisabled()).toBe(true);
    // Escape closes without creating anything.
    await page.keyboard.press('Escape');
    await createDialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'New Group' }).click();
    await createDialog.getByLabel('Group name').fill('  Vox Machina  ');
    expect(await createButton.isDisabled()).toBe(false);
    await createButton.click();
    await visible(page, 'Group created successfully');
    await createDialog.waitFor({ state: 'detached' });
    await visible(page, 'Your Groups');
    await page.getByRole('button', { name: /^Vox Machina/ }).waitFor();

    // Two sessions for this user, the newer one seeded first.
    const userId = await storedUserId(page);
    const seed = (name: string, at: string) =>
      system.platform!.db.query(
        "insert into transcript.transcripts (owner_id, name, session_timestamp, source) values ($1, $2, $3, 'manual')",
        [userId, name, at],
      );
    await seed('The Feywild Crossing', '2026-03-14T19:00:00Z');
    await seed('Whitestone Siege', '2026-02-07T19:00:00Z');
    // Usage in the window: 90 minutes transcribed yesterday (recorded through the bus, as the
    // transcription pipeline does), an older recording outside it, and three AI requests.
    const usage = (seconds: number, daysAgo: number) => {
      const recordId = `audio:${randomUUID()}`;
      return system
        .platform!.bus.publishDurable(
          transcriptionRecordedEvent.subject,
          {
            record_id: recordId,
            owner_id: userId,
            transcript_id: randomUUID(),
            source: 'audio',
            provider: 'deepgram',
            seconds,
            recorded_at: new Date(Date.now() - daysAgo * 24 * 60 * 60 * 1000).toISOString(),
          },
          { msgId: recordId },
        )
        .then(() => recordId);
    };
    const recorded = [await usage(5400, 1), await usage(7200, 40)];
    await waitFor(async () => {
      const rows = await system.platform!.db.query<{ n: number }>(
        'select count(*)::int as n from admin_stats.transcription_usage where record_id = any($1)',
        [recorded],
      );
      return rows[0]?.n === recorded.length;
    });
    for (const model of ['gpt-4.1-nano', 'gpt-4.1-nano', 'gpt-4.1-mini']) {
      await system.platform!.db.query(
        `insert into admin_stats.ai_requests (record_id, user_id, request_type, model, success, created_at)
         values ($1, $2, 'chat', $3, true, now() - interval '2 days')`,
        [randomUUID(), userId, model],
      );
    }
    await page.reload();
    await expect.poll(() => statValue('Transcription Time (30 days)').textContent()).toBe('1.5');
    expect(await statValue('AI Requests (30 days)').textContent()).toBe('3');
    await visible(page, 'Recent Sessions');
    const recent = page.locator('section', { has: page.getByRole('heading', { name: 'Recent Sessions' }) });
    await recent.getByText('Whitestone Siege').waitFor();
    expect(await recent.locator('.dashboard-item-name').allTextContents()).toEqual([
      'The Feywild Crossing',
      'Whitestone Siege',
    ]);
    await recent.getByText('Mar 14, 2026').waitFor();
    expect(await page.getByText("You don't have any sessions yet.").count()).toBe(0);

    // A phone (390 px): the same stats, groups and sessions, nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);
    expect(await statValue('AI Requests (30 days)').textContent()).toBe('3');
    await page.getByRole('button', { name: 'Delete group Vox Machina' }).waitFor();
    await recent.getByText('The Feywild Crossing').waitFor();
    expect(await page.getByRole('link', { name: 'New Session' }).isVisible()).toBe(true);
    await page.screenshot({ path: '/tmp/shots-dashboard-390.png', fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    // Delete the group: Cancel keeps it, Delete removes it.
    await page.getByRole('button', { name: 'Delete group Vox Machina' }).click();
    const deleteDialog = page.getByRole('dialog', { name: 'Delete Group' });
    await deleteDialog
      .getByText('Are you sure you want to delete the group? Sessions will become ungrouped.')
      .waitFor();
    await deleteDialog.getByRole('button', { name: 'Cancel' }).click();
    await deleteDialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Delete group Vox Machina' }).click();
    await deleteDialog.getByRole('button', { name: 'Delete' }).click();
    await visible(page, 'Group deleted successfully');
    await page.getByText('Your Groups', { exact: true }).waitFor({ state: 'detached' });
    expect(await page.getByRole('button', { name: 'Delete group Vox Machina' }).count()).toBe(0);

    // Stats the server cannot give show '--'.
    const statsCall = (url: URL) => url.pathname === '/api/users/stats';
    await page.route(statsCall, (route) =>
      route.fulfill({ status: 404, contentType: 'application/json', body: '{"detail":"Not Found"}' }),
    );
    await page.reload();
    await page.getByRole('heading', { name: 'Your Dashboard', level: 1 }).waitFor();
    await expect.poll(() => statValue('Transcription Time (30 days)').getAttribute('aria-busy')).toBeNull();
    expect(await statValue('Transcription Time (30 days)').textContent()).toBe('--');
    expect(await statValue('AI Requests (30 days)').textContent()).toBe('--');
    await page.unroute(statsCall);

    // A session opens on click.
    await recent.getByText('The Feywild Crossing').click();
    await page.waitForURL('**/sessions/*');
    expect(errors).toEqual([]);
  });
});
