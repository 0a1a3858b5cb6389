// What a library's size costs the browser: a session page opened in Chromium by a user with
// 10 sessions and by one with 10,000 (BENCH_LIBRARY_SESSIONS), side by side in one run, in
// rounds that alternate the two. Per open: DOM nodes (every element), the JS heap after a
// forced garbage collection (CDP HeapProfiler.collectGarbage, then Runtime.getHeapUsage),
// and the requests and bytes the page made from navigation until the network was idle.
// The sidebar reads one page of sessions and renders only the rows it shows, so the big
// library must cost within LIMIT times the small one's DOM nodes, heap and requests.
// The API bytes are printed too: the first page of a big library holds a page of sessions
// (50) where the small one holds its 10, a constant cost that the bundle's bytes dwarf.
// PostgreSQL when DATABASE_URL is set (a throwaway database on that server), else PGlite.
import type { EmbeddedSystem } from '@chronicler/all-in-one';
import type { Browser, Page } from 'playwright-core';
// @ts-expect-error: a plain .mjs module shared with `pnpm start`, no type declarations.
import { buildWebIfNeeded } from '../../scripts/build-web.mjs';
import { localSignIn } from '../support/auth.ts';
import { launchBrowser, newPage, signInLocally } from '../support/browser.ts';
import { startBenchSystem } from './embedded.ts';
import { median, printTable } from './report.ts';

const COUNTS = [10, Number(process.env.BENCH_LIBRARY_SESSIONS ?? 10_000)] as const;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The most a 10,000-session page may cost, as a multiple of a 10-session page. */
const LIMIT = 1.5;

interface Library {
  sessions: number;
  username: string;
  openId: string;
}

interface Measure {
  domNodes: number;
  heapMB: number;
  requests: number;
  kB: number;
  apiRequests: number;
  apiKB: number;
  /** Sessions the sidebar renders (not gated: a check that the page shows its list). */
  sidebarRows: number;
}

async function seed(system: EmbeddedSystem, ownerId: string, sessions: number): Promise<string> {
  // Straight into the transcript service's table, as the create endpoint writes a session
  // (ungrouped, ended, a 100-character preview), one hour apart.
  await system.platform.db.query(
    `insert into transcript.transcripts
            (owner_id, name, session_timestamp, content, preview, summary, source)
     select $1::uuid, 'Session ' || g, timestamptz '2020-01-01' + g * interval '1 hour',
            repeat('MATT: The party rests at the inn. ', 20),
            left(repeat('MATT: The party rests at the inn. ', 4), 100) || '...',
            'The party rests at the inn.', 'manual'
       from generate_series(1, $2::int) g`,
    [ownerId, sessions],
  );
  const [newest] = await system.platform.db.query<{ id: string }>(
    `select id from transcript.transcripts where owner_id = $1 order by session_timestamp desc limit 1`,
    [ownerId],
  );
  return newest!.id;
}

/** Opens the library's newest session in a fresh signed-in context and measures the page. */
async function measure(browser: Browser, url: string, library: Library): Promise<Measure> {
  const { page } = await newPage(browser, url);
  try {
    await signInLocally(page, library.username);
    await page.waitForURL((u) => u.pathname === '/');
    await page.waitForLoadState('networkidle');
    const sizes: Promise<{ api: boolean; bytes: number }>[] = [];
    page.on('requestfinished', (request) => {
      const api = new URL(request.url()).pathname.startsWith('/api/');
      sizes.push(request.sizes().then((s) => ({ api, bytes: s.responseBodySize + s.responseHeadersSize })));
    });
    await page.goto(`/sessions/${library.openId}`);
    await sidebarShowsOpenSession(page);
    await page.waitForLoadState('networkidle');
    const finished = await Promise.all(sizes);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    const heap = await cdp.send('Runtime.getHeapUsage');
    const sidebarRows = await page
      .getByRole('complementary', { name: 'Sidebar' })
      .locator('.browser-item-name', { hasText: 'Session ' })
      .count();
    const domNodes = await page.evaluate(
      () =>
        (
          globalThis as unknown as { document: { getElementsByTagName(name: string): { length: number } } }
        ).document.getElementsByTagName('*').length,
    );
    const api = finished.filter((f) => f.api);
    return {
      domNodes,
      heapMB: heap.usedSize / 2 ** 20,
      requests: finished.length,
      kB: finished.reduce((sum, f) => sum + f.bytes, 0) / 1024,
      apiRequests: api.length,
      apiKB: api.reduce((sum, f) => sum + f.bytes, 0) / 1024,
      sidebarRows,
    };
  } finally {
    await page.context().close();
  }
}

/** The session page is up when the sidebar marks the open session and the transcript shows. */
async function sidebarShowsOpenSession(page: Page): Promise<void> {
  await page
    .getByRole('complementary', { name: 'Sidebar' })
    .locator('[aria-current="page"]', { hasText: 'Session ' })
    .waitFor({ timeout: 60_000 });
}

export async function benchBrowserLibrary(): Promise<void> {
  const started = performance.now();
  if (!buildWebIfNeeded()) throw new Error('the web app did not build');
  const bench = await startBenchSystem();
  const { system, backend } = bench;
  const browser = await launchBrowser();
  try {
    const libraries: Library[] = [];
    for (const sessions of COUNTS) {
      const username = `library-${sessions}`;
      const user = await localSignIn(system.url, username);
      const openId = await seed(system, user.body.user?.id ?? '', sessions);
      libraries.push({ sessions, username, openId });
    }
    const results = new Map<Library, Measure[]>(libraries.map((l) => [l, []]));
    // A first open of each warms the server and the browser; it is not counted.
    for (const library of libraries) await measure(browser, system.url, library);
    for (let round = 0; round < ROUNDS; round++) {
      for (const library of libraries)
        results.get(library)!.push(await measure(browser, system.url, library));
    }
    const medianOf = (library: Library): Measure => {
      const runs = results.get(library)!;
      const of = (key: keyof Measure) => median(runs.map((r) => r[key]));
      return {
        domNodes: of('domNodes'),
        heapMB: of('heapMB'),
        requests: of('requests'),
        kB: of('kB'),
        apiRequests: of('apiRequests'),
        apiKB: of('apiKB'),
        sidebarRows: of('sidebarRows'),
      };
    };
    const [small, big] = libraries.map(medianOf) as [Measure, Measure];
    if (small.sidebarRows < Math.min(COUNTS[0], 5) || big.sidebarRows < 5) {
      throw new Error(`the sidebar showed ${small.sidebarRows} and ${big.sidebarRows} sessions`);
    }
    const ratio = (key: keyof Measure) => big[key] / small[key];
    printTable(
      `A session page in Chromium, ${COUNTS[0]} vs ${COUNTS[1].toLocaleString('en-US')} sessions stored ` +
        `(${backend}; medians of ${ROUNDS} opens each, alternating)`,
      [
        { sessions: COUNTS[0], ...small },
        { sessions: COUNTS[1], ...big },
        {
          sessions: 'ratio',
          ...Object.fromEntries(Object.keys(small).map((k) => [k, ratio(k as keyof Measure)])),
        },
      ],
    );
    const gated: (keyof Measure)[] = ['domNodes', 'heapMB', 'requests', 'kB'];
    for (const key of gated) {
      const r = ratio(key);
      const verdict = r <= LIMIT ? 'ok' : `OVER ${LIMIT}x`;
      console.log(
        `ratio ${COUNTS[1].toLocaleString('en-US')}/${COUNTS[0]} sessions, ${key}: ${r.toFixed(2)}x (${verdict})`,
      );
      if (r > LIMIT) process.exitCode = 1;
    }
    console.log(
      `(not gated) API requests ${ratio('apiRequests').toFixed(2)}x, API bytes ${ratio('apiKB').toFixed(2)}x: ` +
        'one page of sessions against the small library, whose whole list is shorter than a page',
    );
    console.log(`browser-library took ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await browser.close();
    await bench.stop();
  }
}
