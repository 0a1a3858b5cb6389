import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFitsPhone, launchBrowser, newPage, pageScrollWidth } from '../support/browser.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

describe('the web app served by the gateway', () => {
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

  it('sends a signed-out visitor of a protected page to /login, at 1280 and 390 px', async () => {
    const { page, errors } = await newPage(browser, system.url);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width > 400 ? 800 : 844 });
      await page.goto('/groups/some-group');
      await page.waitForURL('**/login');
      await expect(
        page.getByText('Your data is securely stored and only accessible to you.').isVisible(),
      ).resolves.toBe(true);
      expect(await pageScrollWidth(page)).toBeLessThanOrEqual(width);
      if (width === 390) await expectFitsPhone(page);
    }
    expect(errors).toEqual([]);
  });

  it('serves the app for a deep link on reload, and JSON 404s for unknown API paths', async () => {
    const page = await fetch(`${system.url}/sessions/abc/notes`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const api = await fetch(`${system.url}/api/sessions/abc`);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ detail: 'Not found: GET /api/sessions/abc' });
  });
});
