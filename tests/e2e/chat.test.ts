import { EMERGENCY_ADVENTURE_MESSAGE } from '@chronicler/contracts';
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

const SHOTS = '/tmp/shots-chat';
const CHAT_SOCKET = '**/api/ws/chat?**';

async function signedInWithSession(browser: Browser, system: TestSystem, name: string) {
  const { page, errors } = await newPage(browser, system.url);
  await signInLocally(page, name);
  await page.waitForURL('**/welcome');
  const token = await page.evaluate(() =>
    (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem(
      'auth_token',
    ),
  );
  const res = await fetch(`${system.url}/api/transcripts/manual`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Arrival at Kraghammer',
      session_date: '2026-03-01T05:00:00.000Z',
      transcript: crd3Transcript('C1E001', { timed: true, maxChars: 20_000 }),
    }),
  });
  expect(res.status).toBe(200);
  const session = (await res.json()) as { id: string };
  return { page, errors, session, token: token ?? '' };
}

async function openChat(page: Page, sessionId: string) {
  await page.goto(`/sessions/${sessionId}`);
  await page.getByRole('heading', { name: 'Arrival at Kraghammer', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Chat', exact: true }).click();
  const drawer = page.getByRole('dialog', { name: 'Chat' });
  await drawer.waitFor();
  return drawer;
}

describe('chat drawer (fresh embedded start, offline engine)', () => {
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

  it('asks about the transcript: loading dots, a formatted reply, Enter vs Shift+Enter, ADVENTURE, history kept', async () => {
    const { page, errors, session } = await signedInWithSession(browser, system, 'Pike');

    // Replies from the server wait while `holding`, so the waiting state can be seen.
    let holding = true;
    const held: (() => void)[] = [];
    let closed: { code: number | undefined; reason: string | undefined } | null = null;
    await page.routeWebSocket(CHAT_SOCKET, (ws) => {
      const server = ws.connectToServer();
      server.onMessage((message) => {
        const frame = JSON.parse(String(message)) as { type: string };
        if (holding && frame.type === 'message') held.push(() => ws.send(message));
        else ws.send(message);
      });
      ws.onClose((code, reason) => {
        closed = { code, reason };
        void server.close({ code, reason });
      });
    });

    const drawer = await openChat(page, session.id);
    await drawer.getByRole('heading', { name: 'Chat' }).waitFor();
    const adventure = drawer.getByRole('button', { name: 'ADVENTURE' });
    expect(await adventure.getAttribute('title')).toBe('Generate Emergency Adventure Content');
    await drawer.getByText('You can now ask questions about this transcript.').waitFor();
    const input = drawer.getByPlaceholder('Ask about the transcript...');
    const send = drawer.getByRole('button', { name: 'Send' });

    // Shift+Enter adds a line; nothing is sent.
    await input.click();
    await input.pressSequentially('Who healed Grog');
    await input.press('Shift+Enter');
    await input.pressSequentially('after Kevdak banished him?');
    expect(await input.inputValue()).toBe('Who healed Grog\nafter Kevdak banished him?');
    expect(await drawer.locator('[data-role="user"]').count()).toBe(0);

    // Enter sends: the question shows as plain text, the input and Send wait with the dots.
    await input.press('Enter');
    const question = drawer.locator('[data-role="user"]').first();
    await question.waitFor();
    expect(await question.innerText()).toBe('Who healed Grog\nafter Kevdak banished him?');
    const dots = drawer.getByRole('status', { name: 'Waiting for a reply' });
    await dots.waitFor();
    expect(await input.isDisabled()).toBe(true);
    expect(await send.isDisabled()).toBe(true);
    expect(await adventure.isDisabled()).toBe(true);
    expect(await input.inputValue()).toBe('');
    await page.screenshot({ path: `${SHOTS}/chat-waiting.png` });

    // The reply, released: rendered as formatted text (the offline engine quotes lines).
    holding = false;
    held.splice(0).forEach((release) => release());
    const reply = drawer.locator('[data-role="assistant"]').first();
    await reply.waitFor();
    await dots.waitFor({ state: 'detached' });
    expect(await reply.locator('blockquote').count()).toBeGreaterThan(0);
    // Each quoted line's time is a link to its moment in the viewer.
    expect(await reply.locator('a[href$="#t=00:00:12"]').first().getAttribute('href')).toMatch(
      /^\/sessions\/[0-9a-f-]+#t=00:00:12$/,
    );
    expect(await reply.innerText()).not.toContain('> [');
    expect(await drawer.locator('.offline-notice').count()).toBe(1);
    expect(await input.isDisabled()).toBe(false);

    // ADVENTURE sends the fixed emergency message.
    await adventure.click();
    const emergency = drawer.locator('[data-role="user"]').nth(1);
    await emergency.waitFor();
    expect(await emergency.innerText()).toBe(EMERGENCY_ADVENTURE_MESSAGE);
    const adventureReply = drawer.locator('[data-role="assistant"]').nth(1);
    await adventureReply.waitFor();
    expect((await adventureReply.innerText()).trim().length).toBeGreaterThan(0);
    // The offline notice stays one line above the conversation, not one per reply.
    expect(await drawer.locator('.offline-notice').count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}/chat-replies.png` });

    // Closing and opening again reads the conversation back from the server.
    await drawer.getByRole('button', { name: 'Close chat' }).click();
    await drawer.waitFor({ state: 'detached' });
    await expect.poll(() => closed).toEqual({ code: 1000, reason: 'Client navigated away' });
    await page.getByRole('button', { name: 'Chat', exact: true }).click();
    await drawer.locator('[data-role="assistant"]').nth(1).waitFor();
    expect(await drawer.locator('[data-role="user"]').count()).toBe(2);
    expect(await drawer.getByText('You can now ask questions about this transcript.').count()).toBe(0);

    // On a phone (390 px) the drawer and its replies fit the screen, and it still asks and answers.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);
    const drawerBox = (await drawer.boundingBox())!;
    expect(drawerBox.x).toBeGreaterThanOrEqual(0);
    expect(drawerBox.x + drawerBox.width).toBeLessThanOrEqual(390);
    await input.fill('Who rolled for perception?');
    await input.press('Enter');
    await drawer.locator('[data-role="assistant"]').nth(2).waitFor();
    expect(await send.isVisible()).toBe(true);
    await page.screenshot({ path: `${SHOTS}/chat-390.png` });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(errors).toEqual([]);
  });

  it('shows the failure messages when a reply fails, and the drawer closes when the session changes', async () => {
    const { page, errors, session, token } = await signedInWithSession(browser, system, 'Keyleth');
    // A server that refuses every question with an error frame.
    await page.routeWebSocket(CHAT_SOCKET, (ws) => {
      ws.send(JSON.stringify({ type: 'chat_history', messages: [] }));
      ws.onMessage(() => ws.send(JSON.stringify({ type: 'error', error: 'The AI service is unavailable.' })));
    });
    const drawer = await openChat(page, session.id);
    const input = drawer.getByPlaceholder('Ask about the transcript...');
    await input.fill('What happened in Kraghammer?');
    await drawer.getByRole('button', { name: 'Send' }).click();
    await drawer.getByText('Error: Failed to get a response. Please try again.').waitFor();
    expect(await input.isDisabled()).toBe(false);

    await drawer.getByRole('button', { name: 'ADVENTURE' }).click();
    await drawer.getByText('Error: Failed to send emergency message. Please try again.').waitFor();
    const system_ = drawer.locator('[data-role="system"]');
    expect(await system_.count()).toBe(2);
    // System messages are plain text, not markdown.
    expect(await system_.first().locator('p').count()).toBe(1);

    // Another session: the drawer is closed there.
    const res = await fetch(`${system.url}/api/transcripts/manual`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'The Briarwoods',
        session_date: '2026-03-08T05:00:00.000Z',
        transcript: '[00:00:01] MATT: Whitestone is dark.',
      }),
    });
    const second = (await res.json()) as { id: string };
    // In-app navigation (as the sidebar does), so the page stays and only the route changes.
    await page.evaluate((path) => {
      const w = globalThis as unknown as {
        history: { pushState(s: unknown, t: string, u: string): void };
        dispatchEvent(e: unknown): void;
        PopStateEvent: new (type: string) => unknown;
      };
      w.history.pushState({}, '', path);
      w.dispatchEvent(new w.PopStateEvent('popstate'));
    }, `/sessions/${second.id}`);
    await page.getByRole('heading', { name: 'The Briarwoods', level: 1 }).waitFor();
    expect(await page.getByRole('dialog', { name: 'Chat' }).count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
