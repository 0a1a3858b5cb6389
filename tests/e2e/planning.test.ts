import type { Browser, Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFitsPhone, launchBrowser, newPage, signInLocally } from '../support/browser.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-planning';

interface Group {
  id: string;
  group_id: string;
  name: string;
}

type Storage = { localStorage: { getItem(key: string): string | null } };
const storedItem = (page: Page, key: string) =>
  // Runs in the page; the test project's TypeScript has no DOM types.
  page.evaluate((k) => (globalThis as unknown as Storage).localStorage.getItem(k), key);

/**
 * The text the editor itself holds as selected. Its selection follows the page's through the
 * asynchronous `selectionchange` event, so a test that moves focus right after selecting
 * must wait for this, or the message goes out with the selection the editor had before.
 */
function editorSelection(page: Page): Promise<string> {
  return page.evaluate(() => {
    const dom = (
      globalThis as unknown as { document: { querySelector(s: string): unknown } }
    ).document.querySelector('.ProseMirror') as {
      editor?: {
        state: {
          selection: { from: number; to: number };
          doc: { textBetween(a: number, b: number): string };
        };
      };
    } | null;
    const state = dom?.editor?.state;
    return state ? state.doc.textBetween(state.selection.from, state.selection.to) : '';
  });
}

/**
 * Relays the planning socket through the test, which can hold the server's replies back:
 * the waiting state is only visible while a reply is on its way, and the offline fallback
 * answers in milliseconds.
 */
async function relayPlanningSocket(page: Page) {
  let hold = false;
  const held: { route: WebSocketRoute; message: string | Buffer }[] = [];
  await page.routeWebSocket(/\/api\/ws\/planning/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => server.send(m));
    server.onMessage((m) => {
      if (hold) held.push({ route: ws, message: m });
      else ws.send(m);
    });
  });
  return {
    hold() {
      hold = true;
    },
    /** Waits for `n` held replies: message or error frames, not a (re)connect's chat_history. */
    async waitForHeld(n = 1) {
      const deadline = Date.now() + 20_000;
      const replies = () =>
        held.filter(({ message }) => !String(message).includes('"type":"chat_history"')).length;
      while (replies() < n) {
        if (Date.now() > deadline) throw new Error('no reply was held');
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    release() {
      hold = false;
      for (const { route, message } of held.splice(0)) route.send(message);
    },
  };
}

describe('campaign planning workspace', () => {
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let errors: Error[];
  let campaign: Group;
  let relay: Awaited<ReturnType<typeof relayPlanningSocket>>;

  const api = async <T>(method: string, p: string, body?: unknown): Promise<T> => {
    const token = await storedItem(page, 'auth_token');
    const res = await fetch(`${system.url}/api${p}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${p} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };

  const chat = () => page.getByRole('region', { name: 'Planning chat' });
  const documentPanel = () => page.getByRole('region', { name: 'Planning document' });
  const editor = () => documentPanel().getByRole('textbox', { name: 'Session plan' });
  const input = () => page.getByLabel('Planning message');
  /**
   * Sends `text` from the chat box and resolves with the text of its own reply. Earlier replies
   * may say the same (the offline fallback repeats itself), so it waits for one more reply, not
   * for a text.
   */
  const ask = async (text: string): Promise<string> => {
    const replies = chat().locator('.planning-message.is-assistant:not(.planning-waiting)');
    const before = await replies.count();
    await input().fill(text);
    await input().press('Enter');
    await replies.nth(before).waitFor();
    return (await replies.nth(before).textContent()) ?? '';
  };

  beforeAll(async () => {
    system = await startSystem({ mode: 'embedded' });
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser, system.url));
    await signInLocally(page, 'Keyleth');
    await page.waitForURL('**/welcome');
    campaign = await api<Group>('POST', '/groups', { name: 'Vox Machina' });
    await api('POST', '/transcripts/manual', {
      name: 'The Sunken Tomb',
      session_date: '2015-04-02T00:00:00.000Z',
      transcript: '[00:00:05] MATT: You stand before the sunken tomb.',
      summary:
        'The party must find the missing Vesper before the Briarwoods return. Vesper was last seen near Whitestone. The Briarwoods need the ritual stones.',
      group_id: campaign.group_id,
    });
    relay = await relayPlanningSocket(page);
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('opens from the group dashboard: header, Connected, chat with a waiting state, SUGGESTIONS, back', async () => {
    await page.goto(`/groups/${campaign.group_id}`);
    await page.getByRole('link', { name: 'Enter Planning Mode' }).click();
    await page.waitForURL(`**/groups/${campaign.group_id}/planning`);
    await page.getByRole('heading', { name: 'Campaign Planning', level: 1 }).waitFor();
    expect(await page.locator('.planning-header').getByText('Vox Machina', { exact: true }).count()).toBe(1);
    await page.getByText('Connected', { exact: true }).waitFor();
    // No stored document: the editor starts closed.
    expect(await documentPanel().isHidden()).toBe(true);
    await page.getByRole('button', { name: 'OPEN DOC' }).waitFor();

    // Empty and blank messages are not sent.
    const send = chat().getByRole('button', { name: 'Send' });
    expect(await send.isDisabled()).toBe(true);
    await input().fill('   ');
    await input().press('Enter');
    expect(await chat().locator('.planning-message').count()).toBe(0);

    // Shift+Enter adds a line; Enter sends.
    await input().fill('Where is Vesper?');
    await input().press('Shift+Enter');
    await input().pressSequentially('Who holds her?');
    expect(await input().inputValue()).toBe('Where is Vesper?\nWho holds her?');
    relay.hold();
    await input().press('Enter');
    await chat().getByText('Planning your next move...').waitFor();
    expect(await input().inputValue()).toBe('');
    // While waiting, nothing else is sent.
    expect(await page.getByRole('button', { name: 'SUGGESTIONS' }).isDisabled()).toBe(true);
    await relay.waitForHeld();
    relay.release();
    await chat().getByText('Planning your next move...').waitFor({ state: 'detached' });
    const reply = chat().locator('.planning-message.is-assistant').last();
    expect(await reply.textContent()).toContain('Vesper');

    await page.getByRole('button', { name: 'SUGGESTIONS' }).click();
    await chat().locator('.planning-message.is-user', { hasText: 'GENERATE SESSION SUGGESTIONS' }).waitFor();
    // The waiting line ('Planning your next move...') is an assistant bubble too: not a reply.
    const replies = chat().locator('.planning-message.is-assistant:not(.planning-waiting)');
    await replies.nth(1).waitFor();
    expect((await replies.nth(1).textContent())?.length).toBeGreaterThan(40);

    // The conversation is the group's: it is there again after a reload.
    await page.reload();
    await page.getByText('Connected', { exact: true }).waitFor();
    await chat().locator('.planning-message.is-user', { hasText: 'GENERATE SESSION SUGGESTIONS' }).waitFor();
    expect(await chat().locator('.planning-message').count()).toBe(4);

    await page.getByRole('button', { name: 'Back to group dashboard' }).click();
    await page.waitForURL(`**/groups/${campaign.group_id}`);
    await page.getByRole('link', { name: 'Enter Planning Mode' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('offline, answers a document request in the chat without touching the document, and keeps the document after a reload', async () => {
    await page.goto(`/groups/${campaign.group_id}/planning`);
    await page.getByText('Connected', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'OPEN DOC' }).click();
    await editor().click();
    await page.keyboard.type('Session plan');
    await page.getByRole('button', { name: 'Heading 1' }).click();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('The party enters the tomb.');
    expect(await editor().locator('h1').textContent()).toBe('Session plan');
    // Select the paragraph just typed, then ask for it to be rewritten.
    await page.keyboard.press('Shift+Home');
    expect(
      await page.evaluate(() =>
        String((globalThis as unknown as { getSelection(): unknown }).getSelection()),
      ),
    ).toBe('The party enters the tomb.');
    await expect.poll(() => editorSelection(page)).toBe('The party enters the tomb.');
    const before = await chat().locator('.planning-message').count();
    const documentBefore = await editor().innerHTML();
    // Offline, the fallback cannot rewrite: it says so in the chat, and the document stays as it was.
    expect(await ask('Rewrite the selected text in the document to be more dramatic.')).toMatch(
      /^The offline fallback cannot write or change the planning document/,
    );
    expect(await chat().locator('.planning-message').count()).toBe(before + 2);
    expect(await chat().textContent()).not.toContain('actionHint');
    expect(await chat().locator('.offline-notice').count()).toBe(1);
    expect(await editor().innerHTML()).toBe(documentBefore);
    expect(await chat().getByText('✅ Document updated.').count()).toBe(0);

    expect(await ask('Add a list of encounter ideas to the document.')).toMatch(
      /Threads your sessions left open|list no open threads yet/,
    );
    expect(await editor().innerHTML()).toBe(documentBefore);
    const html = await editor().innerHTML();

    // Saved 5 s after the last edit, under the group's key.
    const key = `planning_document_${campaign.group_id}`;
    await page.waitForFunction(
      (k) => ((globalThis as unknown as Storage).localStorage.getItem(k) ?? '').includes('Session plan'),
      key,
      { timeout: 15_000 },
    );
    await page.reload();
    await page.getByText('Connected', { exact: true }).waitFor();
    // A stored document opens the editor on a wide screen.
    await documentPanel().waitFor();
    expect(await editor().innerHTML()).toBe(html);
    await page.screenshot({ path: `${SHOTS}/planning-wide.png` });
    expect(errors).toEqual([]);
  });

  it('refuses and logs a send when the stored token is gone', async () => {
    await page.goto(`/groups/${campaign.group_id}/planning`);
    await page.getByText('Connected', { exact: true }).waitFor();
    const count = await chat().locator('.planning-message').count();
    const token = await storedItem(page, 'auth_token');
    const logged: string[] = [];
    const onConsole = (m: { type(): string; text(): string }) => {
      if (m.type() === 'error') logged.push(m.text());
    };
    page.on('console', onConsole);
    await page.evaluate(() =>
      (globalThis as unknown as { localStorage: { removeItem(k: string): void } }).localStorage.removeItem(
        'auth_token',
      ),
    );
    await input().fill('Anyone there?');
    await input().press('Enter');
    await expect.poll(() => logged).toContain('Planning: no auth token, message not sent');
    page.off('console', onConsole);
    expect(await chat().locator('.planning-message').count()).toBe(count);
    expect(await chat().getByText('Planning your next move...').count()).toBe(0);
    expect(await input().inputValue()).toBe('Anyone there?');
    await page.evaluate(
      (t) =>
        (
          globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }
        ).localStorage.setItem('auth_token', t),
      token!,
    );
  });

  it("shows 'Group not found' for an unknown group, with a way back to the groups", async () => {
    await page.goto('/groups/no-such-group/planning');
    await page.getByRole('heading', { name: 'Group not found' }).waitFor();
    await page.getByText('The selected group for planning could not be found.').waitFor();
    await page.getByRole('button', { name: 'Back to Groups' }).click();
    await page.waitForURL((url) => url.pathname === '/');
  });

  it('stacks the panels with the chat full width at 390 px', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/groups/${campaign.group_id}/planning`);
    await page.getByText('Connected', { exact: true }).waitFor();
    // A stored document does not open the editor on a narrow screen.
    expect(await documentPanel().isHidden()).toBe(true);
    await page.getByRole('button', { name: 'OPEN DOC' }).click();
    await documentPanel().waitFor();
    const chatBox = (await chat().boundingBox())!;
    const docBox = (await documentPanel().boundingBox())!;
    const content = (await page.locator('.planning-body').boundingBox())!;
    expect(chatBox.width).toBeCloseTo(content.width, 0);
    expect(docBox.width).toBeCloseTo(content.width, 0);
    expect(docBox.y).toBeGreaterThanOrEqual(chatBox.y + chatBox.height);
    await expectFitsPhone(page);
    await page.screenshot({ path: `${SHOTS}/planning-390.png`, fullPage: true });
    // The document the previous test left is the group's on every screen.
    expect(await editor().textContent()).toBe('Session planThe party enters the tomb.');
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(errors).toEqual([]);
  });
});
