import type { Browser, Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthPeer, type OAuthPeer } from '../peers/oauth.ts';
import { expectFitsPhone, launchBrowser, newPage, signInLocally } from '../support/browser.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const storage = (page: Page) =>
  page.evaluate(() => {
    // Runs in the page; the test project's TypeScript has no DOM types.
    const ls = (globalThis as unknown as { localStorage: { getItem(key: string): string | null } })
      .localStorage;
    return {
      auth_user: ls.getItem('auth_user'),
      auth_state: ls.getItem('auth_state'),
      auth_token: ls.getItem('auth_token'),
      admin_override_disabled: ls.getItem('admin_override_disabled'),
    };
  });

const visible = (page: Page, text: string) => page.getByText(text, { exact: true }).first().waitFor();

describe('sign-in with a local account (fresh embedded start, nothing configured)', () => {
  let system: TestSystem;
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync('/tmp/shots-sign-in', { recursive: true });
    system = await startSystem({ mode: 'embedded' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('a fresh instance without Discord offers the local account first, opened on "Create account" (1280 and 390 px)', async () => {
    const { page, errors } = await newPage(browser, system.url);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto('/login');
      await visible(page, 'Use a local account');
      expect(await page.getByRole('radio', { name: 'Create account' }).isChecked()).toBe(true);
      await page.getByLabel('Confirm password').waitFor();
      // The form comes before the Discord button, which is off and says why.
      const form = await page.getByRole('button', { name: 'Create local account' }).boundingBox();
      const discord = await page.getByRole('button', { name: 'Login with Discord' }).boundingBox();
      expect(form!.y).toBeLessThan(discord!.y);
      expect(await page.getByRole('button', { name: 'Login with Discord' }).isDisabled()).toBe(true);
      // Nothing wider than the screen.
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
      if (width === 390) await expectFitsPhone(page);
      await page.screenshot({ path: `/tmp/shots-sign-in/first-visit-${width}.png`, fullPage: true });
    }
    expect(errors).toEqual([]);
  });

  it('creates a local account with a password and lands on /welcome, which says the invite URL is missing', async () => {
    const { page, errors } = await newPage(browser, system.url);
    await page.goto('/login');
    await visible(page, 'Use a local account');
    await page.getByRole('radio', { name: 'Create account' }).check();
    const password = page.getByLabel('Password', { exact: true });
    expect(await password.getAttribute('type')).toBe('password');
    expect(await password.getAttribute('autocomplete')).toBe('new-password');
    expect(await password.getAttribute('maxlength')).toBe('256');
    expect(await page.getByLabel('Username').getAttribute('maxlength')).toBe('32');
    await page.getByLabel('Username').fill('Grog');
    await password.fill('grog-smash-42');
    await page.getByLabel('Confirm password').fill('grog-smash-42');
    await page.getByRole('button', { name: 'Create local account' }).click();
    await visible(page, 'Successfully authenticated');
    await page.waitForURL('**/welcome');
    await visible(page, 'Getting Started');
    await visible(page, 'Invite URL is not configured. Please set the invite URL setting.');
    expect(await page.getByRole('button', { name: 'Add Chronicler to Discord' }).isDisabled()).toBe(true);
    await visible(page, 'Grog');
    const stored = await storage(page);
    expect(stored.auth_state).toBe('authenticated');
    expect(JSON.parse(stored.auth_user ?? '{}')).toMatchObject({ username: 'Grog', is_admin: false });
    expect(stored.auth_token).toMatch(/^ey/);
    // The Admin entry is for admins only.
    expect(await page.getByRole('link', { name: 'Admin' }).count()).toBe(0);

    // A reload keeps the user signed in; an already signed-in user is sent away from /login.
    await page.reload();
    await visible(page, 'Getting Started');
    await page.goto('/login');
    await page.waitForURL((url) => url.pathname === '/');
    expect(errors).toEqual([]);
  });

  it('signs in with the password; a wrong one shows the server message and signs nobody in', async () => {
    const { page, errors } = await newPage(browser, system.url);
    await page.goto('/login');
    await visible(page, 'Use a local account');
    // Sign in is the default choice, with the browser's saved password offered.
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('autocomplete')).toBe(
      'current-password',
    );
    await visible(
      page,
      'Made a local account before passwords were required? Sign in with its name and choose a password now: the first password entered for it becomes its password.',
    );
    await page.getByLabel('Username').fill('grog');
    await page.getByLabel('Password', { exact: true }).fill('not-grogs-password');
    await page.getByRole('button', { name: 'Sign in locally' }).click();
    await visible(page, 'Invalid username or password.');
    expect((await storage(page)).auth_token).toBeNull();
    expect((await page.context().cookies()).find((c) => c.name === 'access_token')).toBeUndefined();

    await page.getByLabel('Password', { exact: true }).fill('grog-smash-42');
    await page.getByRole('button', { name: 'Sign in locally' }).click();
    await visible(page, 'Successfully authenticated');
    await page.waitForURL((url) => url.pathname !== '/login');
    expect((await storage(page)).auth_token).toMatch(/^ey/);
    expect(errors).toEqual([]);
  });

  it('logs out: clears local auth data, says so, and the old token stops working', async () => {
    const { page } = await newPage(browser, system.url);
    await signInLocally(page, 'Pike');
    await page.waitForURL('**/welcome');
    const token = (await storage(page)).auth_token!;

    await page.getByRole('button', { name: 'Logout' }).click();
    await visible(page, 'Successfully logged out');
    await page.waitForURL('**/login');
    expect(await storage(page)).toEqual({
      auth_user: null,
      auth_state: null,
      auth_token: null,
      admin_override_disabled: null,
    });
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'access_token')).toBeUndefined();
    const check = await fetch(`${system.url}/api/auth/user`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await check.json()).toMatchObject({ authenticated: false });

    await page.goto('/welcome');
    await page.waitForURL('**/login');
  });

  it('replaces a refused access token through the refresh cookie without the user noticing', async () => {
    const { page, errors } = await newPage(browser, system.url);
    await signInLocally(page, 'Vax');
    await page.waitForURL('**/welcome');
    const cookies = await page.context().cookies();
    const refresh = cookies.find((c) => c.name === 'refresh_token');
    expect(refresh).toMatchObject({ httpOnly: true, path: '/api/auth/refresh', sameSite: 'Strict' });
    // The page holds a token the server refuses (as it refuses an expired one), and the
    // access cookie is gone (it lives only as long as its token).
    const good = (await storage(page)).auth_token!;
    const [h, p] = good.split('.');
    const refused = `${h}.${p}.not-the-signature`;
    await page.evaluate((t) => {
      (
        globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }
      ).localStorage.setItem('auth_token', t);
    }, refused);
    await page.context().clearCookies({ name: 'access_token' });

    await page.reload();
    await visible(page, 'Getting Started');
    await page.waitForURL('**/welcome');
    // The page shows from the stored user at once; the refresh replaces the token as soon as
    // the server refuses the old one, which may be a moment after the page is on screen.
    await page.waitForFunction(
      (t) =>
        (
          globalThis as unknown as { localStorage: { getItem(k: string): string | null } }
        ).localStorage.getItem('auth_token') !== t,
      refused,
      { timeout: 20_000 },
    );
    const renewed = (await storage(page)).auth_token!;
    expect(renewed).toMatch(/^ey/);
    expect(renewed).not.toBe(refused);
    const check = await fetch(`${system.url}/api/auth/user`, {
      headers: { authorization: `Bearer ${renewed}` },
    });
    expect(await check.json()).toMatchObject({ authenticated: true, user: { username: 'Vax' } });
    // The credential was rotated by its use.
    const after = (await page.context().cookies()).find((c) => c.name === 'refresh_token');
    expect(after?.value).toBeTruthy();
    expect(after?.value).not.toBe(refresh?.value);
    expect(errors).toEqual([]);
  });

  it('sends a returning user who has sessions to / instead of /welcome', async () => {
    const first = await newPage(browser, system.url);
    await signInLocally(first.page, 'Keyleth');
    await first.page.waitForURL('**/welcome');
    const user = JSON.parse((await storage(first.page)).auth_user ?? '{}') as { id: string };
    // Seeded where the sessions issue's create endpoint will write.
    await system.platform!.db.query(
      `insert into transcript.transcripts (owner_id, name, source) values ($1, 'The Sunken Tomb', 'manual')`,
      [user.id],
    );

    const { page } = await newPage(browser, system.url);
    await signInLocally(page, 'keyleth');
    await visible(page, 'Successfully authenticated');
    await page.waitForURL((url) => url.pathname === '/');
  });

  it('scrolls to the top when the path changes', async () => {
    const { page } = await newPage(browser, system.url);
    // Shorter than the dashboard too, so the browser cannot reach 0 by clamping a short page.
    await page.setViewportSize({ width: 1280, height: 120 });
    await signInLocally(page, 'Taryon');
    await page.waitForURL('**/welcome');
    type Win = { scrollY: number; scrollTo(x: number, y: number): void };
    // Scroll the window itself (a wheel event goes to whatever is under the pointer), and
    // again until it moves: the page may still be growing as its data arrives.
    await page.waitForFunction(() => {
      const w = globalThis as unknown as Win;
      w.scrollTo(0, 10_000);
      return w.scrollY > 0;
    });
    await page
      .getByRole('complementary', { name: 'Sidebar' })
      .getByRole('link', { name: 'Dashboard' })
      .click();
    await page.waitForURL((url) => url.pathname === '/');
    // The reset runs in an effect after the new page renders: wait for it (fails if it never comes).
    await page.waitForFunction(() => (globalThis as unknown as Win).scrollY === 0, undefined, {
      timeout: 5_000,
    });
  });

  it('retries a callback that cannot sign in 3 times, then fails and returns to /login', async () => {
    const { page } = await newPage(browser, system.url);
    await page.goto('/auth/callback?token=not-a-token');
    await visible(page, 'Finalizing Authentication...');
    // The token is taken out of the address at once.
    await page.waitForURL((url) => !url.searchParams.has('token'));
    await visible(page, 'Retrying... (1/3)');
    await visible(page, 'Retrying... (3/3)');
    await visible(page, 'Authentication failed. Please try logging in again.');
    await page.waitForURL('**/login', { timeout: 10_000 });
    expect((await storage(page)).auth_token).toBeNull();
  });
});

describe('sign-in with Discord in the browser, against the OAuth peer', () => {
  let peer: OAuthPeer;
  let system: TestSystem;
  let browser: Browser;
  beforeAll(async () => {
    peer = await startOAuthPeer();
    peer.discordUser = {
      ...peer.discordUser,
      id: '424242424242424242',
      username: 'vex',
      global_name: "Vex'ahlia",
    };
    system = await startSystem({
      mode: 'embedded',
      env: {
        ...peer.env('discord'),
        ADMIN_DISCORD_IDS: '424242424242424242',
        DISCORD_BOT_INVITE_URL: 'https://discord.com/oauth2/authorize?client_id=1&scope=bot',
      },
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await peer?.close();
  });

  it('goes login → Discord → callback → /welcome, offers no local account, and shows the admin entry', async () => {
    const { page, errors } = await newPage(browser, system.url);
    await page.goto('/login');
    await page.getByRole('button', { name: 'Login with Discord' }).waitFor();
    expect(await page.getByText('Use a local account').count()).toBe(0);
    await page.getByRole('button', { name: 'Login with Discord' }).click();
    await visible(page, 'Successfully authenticated');
    await page.waitForURL('**/welcome');
    expect(await page.getByRole('link', { name: 'Add Chronicler to Discord' }).getAttribute('href')).toBe(
      'https://discord.com/oauth2/authorize?client_id=1&scope=bot',
    );
    await page.getByRole('link', { name: 'Admin' }).waitFor();
    const cookie = (await page.context().cookies()).find((c) => c.name === 'access_token');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(errors).toEqual([]);

    // The admin override: off with ?disableAdmin=true (notice, no Admin entry), on again with false.
    await page.goto('/welcome?disableAdmin=true');
    await visible(page, 'Admin features disabled for testing');
    expect(await page.getByRole('link', { name: 'Admin' }).count()).toBe(0);
    expect((await storage(page)).admin_override_disabled).toBe('true');
    await page.goto('/admin');
    await page.waitForURL((url) => url.pathname === '/');
    await page.goto('/welcome?disableAdmin=false');
    await page.getByRole('link', { name: 'Admin' }).waitFor();
    expect(await page.getByText('Admin features disabled for testing').count()).toBe(0);
  });

  it('returns to /login when the user refuses consent at Discord', async () => {
    peer.consent = 'deny';
    try {
      const { page } = await newPage(browser, system.url);
      await page.goto('/login');
      await page.getByRole('button', { name: 'Login with Discord' }).click();
      await page.waitForURL(
        (url) => url.pathname === '/login' && url.searchParams.get('error') === 'access_denied',
      );
      expect((await page.context().cookies()).find((c) => c.name === 'access_token')).toBeUndefined();
    } finally {
      peer.consent = 'allow';
    }
  });
});
