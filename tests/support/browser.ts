import { chromium, type Browser, type Page } from 'playwright-core';
import { localPassword } from './auth.ts';
import { discordUserFor, type OAuthPeer } from '../peers/oauth.ts';

/** Debian's Chromium, headless: no sandbox (the tests run as root), no GPU, no background network chatter. */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--disable-quic',
      ...extraArgs,
    ],
  });
}

/** A fresh page (own cookies and storage) that fails the test on any uncaught page error. */
export async function newPage(browser: Browser, baseURL: string): Promise<{ page: Page; errors: Error[] }> {
  const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on('pageerror', (err) => errors.push(err));
  return { page, errors };
}

/**
 * Signs in through the login page's local account form, as "Create account" with
 * `localPassword(username)`: the first time it creates the account, later it signs in
 * (a create with the account's own password does). The caller waits for where it lands.
 */
export async function signInLocally(page: Page, username: string): Promise<void> {
  await page.goto('/login');
  await page.getByRole('radio', { name: 'Create account' }).check();
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(localPassword(username));
  await page.getByLabel('Confirm password').fill(localPassword(username));
  await page.getByRole('button', { name: 'Create local account' }).click();
}

/** The access token the web app stored for its signed-in user (to call the API as that user). */
export async function storedToken(page: Page): Promise<string> {
  // Runs in the page; the test project's TypeScript has no DOM types.
  const token = await page.evaluate(() =>
    (globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem(
      'auth_token',
    ),
  );
  return token ?? '';
}

/**
 * Signs a fresh browser context in through the OAuth peer as this Discord user. The system
 * must redirect to its own address (PUBLIC_URL set to it).
 */
export async function signInWithDiscordBrowser(
  browser: Browser,
  baseURL: string,
  oauth: OAuthPeer,
  user: { id: string; username: string },
): Promise<{ page: Page; errors: Error[] }> {
  oauth.discordUser = discordUserFor(user);
  const { page, errors } = await newPage(browser, baseURL);
  await page.goto('/login');
  await page.getByRole('button', { name: 'Login with Discord' }).click();
  // A new user lands on /welcome, one with sessions on the dashboard.
  await page.waitForURL((u) => u.pathname === '/welcome' || u.pathname === '/');
  return { page, errors };
}

/** How wide the page's content is (px): wider than the viewport, the page scrolls sideways. */
export function pageScrollWidth(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
        .documentElement.scrollWidth,
  );
}

/**
 * The visible controls (buttons, links, fields, selects) that reach past the window's left or
 * right edge: on a phone these are cut off and cannot be read or pressed whole. A control
 * inside a box that scrolls sideways on its own (a wide table) is reachable and not counted.
 * Also the fields whose placeholder or chosen option is wider than the field. Each is named
 * by its tag and its label or text.
 */
export function controlsCutOff(page: Page): Promise<string[]> {
  // A string runs in the page as it is: the test project's TypeScript has no DOM types.
  return page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    const scrollsSideways = (el) => {
      for (let p = el.parentElement; p; p = p.parentElement) {
        const x = getComputedStyle(p).overflowX;
        if (x === 'auto' || x === 'scroll') return true;
      }
      return false;
    };
    const cut = [];
    for (const el of document.querySelectorAll('button, a[href], input, select, textarea, summary, [role="button"]')) {
      if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
      const box = el.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) continue;
      if (box.left >= -0.5 && box.right <= width + 0.5) continue;
      if (scrollsSideways(el)) continue;
      const name = el.getAttribute('aria-label') || el.getAttribute('placeholder') || el.textContent.trim().slice(0, 40);
      cut.push(el.tagName.toLowerCase() + ' "' + name + '" ' + Math.round(box.left) + '..' + Math.round(box.right));
    }
    // A field whose hint (an empty input's placeholder, a select's chosen option) is wider
    // than the field shows it cut short.
    const ctx = document.createElement('canvas').getContext('2d');
    for (const el of document.querySelectorAll('input, select')) {
      if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
      const style = getComputedStyle(el);
      let text = '';
      let room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      if (el.tagName === 'SELECT') {
        text = el.selectedOptions[0] ? el.selectedOptions[0].text : '';
        room -= 16; // the drop-down arrow
      } else if (el.value === '' && el.placeholder && !['checkbox', 'radio', 'file', 'range', 'color', 'date', 'time', 'datetime-local'].includes(el.type)) {
        text = el.placeholder;
      }
      if (!text || room <= 0) continue;
      ctx.font = style.font;
      const needed = ctx.measureText(text).width;
      if (needed > room + 1) cut.push(el.tagName.toLowerCase() + ' "' + text + '" needs ' + Math.round(needed) + ' px, has ' + Math.round(room));
    }
    return cut;
  })()`);
}

/** The page at a phone's width (390 px) fits: nothing wider than the screen, no control cut off. */
export async function expectFitsPhone(page: Page, width = 390): Promise<void> {
  // Measured once the layout has settled: a window just made narrow still slides its sidebar
  // away (a CSS transition); endless animations (a live dot's pulse) do not count.
  // (Polled with evaluate: waitForFunction evaluates a string with eval, which the app's CSP refuses.)
  for (let tries = 0; tries < 50; tries++) {
    const settled = await page.evaluate(
      `document.getAnimations().every((a) => a.effect && a.effect.getTiming().iterations === Infinity)`,
    );
    if (settled) break;
    await page.waitForTimeout(100);
  }
  const overflow = await pageScrollWidth(page);
  const cut = await controlsCutOff(page);
  if (overflow <= width && cut.length === 0) return;
  // What reaches past the right edge (the innermost such elements), to say what to fix.
  const wide = (await page.evaluate(`[...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > ${width} + 0.5 && el.getBoundingClientRect().width > 0)
    .filter((el, _, all) => !all.some((other) => other !== el && el.contains(other)))
    .slice(0, 5)
    .map((el) => el.tagName.toLowerCase() + '.' + String(el.className).split(' ').join('.') + ' ' + Math.round(el.getBoundingClientRect().right) + ' px')`)) as string[];
  throw new Error(
    `at ${width} px the page is ${overflow} px wide (${wide.join('; ') || 'nothing'}); cut off: ${cut.join('; ') || 'none'}`,
  );
}
