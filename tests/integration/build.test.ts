// `pnpm build` / `pnpm start`: the services compiled by scripts/build.mjs run on plain node.
// Cluster mode's counterpart is delivery.test.ts, which deploys the compiled services as the
// images hold them and starts them against NATS, PostgreSQL and Redis.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, repoRoot, stopChild, testMode, waitFor } from '../support/system.ts';

const packageDirs = ['services', 'services/shared'].flatMap((parent) =>
  readdirSync(path.join(repoRoot, parent))
    .map((name) => path.join(repoRoot, parent, name))
    .filter((dir) => existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'src'))),
);

function filesUnder(dir: string, keep: (f: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(p, keep);
    return keep(p) ? [p] : [];
  });
}

/** Every module specifier of a compiled file: static imports and exports, and `import('...')`. */
function specifiers(js: string): string[] {
  const found = [...js.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)"([^"]+)"/gm)];
  return found.map((m) => m[1]!);
}

describe.runIf(testMode === 'embedded')('the compiled services', () => {
  const children: ChildProcess[] = [];
  let dataDir = '';

  beforeAll(() => {
    const built = spawnSync(process.execPath, ['scripts/build.mjs', '--services', '--if-stale'], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    expect(built.status, `${built.stdout}${built.stderr}`).toBe(0);
  });

  afterAll(async () => {
    await Promise.all(children.map(stopChild));
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('compile every source but the tests to JavaScript whose imports all resolve to compiled files', () => {
    for (const dir of packageDirs) {
      const sources = filesUnder(
        path.join(dir, 'src'),
        (f) => /\.(ts|mjs)$/.test(f) && !f.endsWith('.test.ts'),
      );
      expect(sources.length, dir).toBeGreaterThan(0);
      for (const src of sources) {
        const rel = path.relative(path.join(dir, 'src'), src).replace(/\.ts$/, '.js');
        const text = readFileSync(src, 'utf8');
        // The shared test suites import vitest: they stay out, as the tests do.
        expect(existsSync(path.join(dir, 'dist', rel)), rel).toBe(!/from 'vitest'/.test(text));
      }
      for (const js of filesUnder(path.join(dir, 'dist'), (f) => /\.m?js$/.test(f))) {
        for (const spec of specifiers(readFileSync(js, 'utf8'))) {
          expect(spec, js).not.toMatch(/\.[cm]?ts($|\?)/);
          if (spec.startsWith('.'))
            expect(
              existsSync(path.resolve(path.dirname(js), spec.replace(/\?.*/, ''))),
              `${js}: ${spec}`,
            ).toBe(true);
          const own = /^@chronicler\/([^/]+)\/(.*)$/.exec(spec);
          if (spec.startsWith('@chronicler/')) {
            expect(own?.[2], `${js}: ${spec}`).toMatch(/^dist\/.+\.js$/);
            const target = packageDirs.find((d) => path.basename(d) === own![1])!;
            expect(existsSync(path.join(target, own![2]!)), `${js}: ${spec}`).toBe(true);
          }
        }
        // Source maps name the TypeScript file (or a JSON file of the package's own, read into
        // the code that imports it), without carrying its text (a file of types only compiles to
        // nothing and maps nothing).
        const map = JSON.parse(readFileSync(`${js}.map`, 'utf8')) as {
          sources: string[];
          sourcesContent?: unknown;
        };
        expect(map.sourcesContent, js).toBeUndefined();
        for (const s of map.sources) expect(s, js).toMatch(/\.(ts|mjs|json)$/);
        for (const s of map.sources)
          expect(existsSync(path.resolve(path.dirname(js), s)), `${js}: ${s}`).toBe(true);
      }
    }
  });

  it('start as `pnpm start` runs them: dist/main.js on plain node, without a TypeScript loader', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-built-'));
    const [port, ops] = [await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn' };
    const child = spawn(process.execPath, ['--enable-source-maps', 'services/all-in-one/dist/main.js'], {
      cwd: repoRoot,
      env: { ...env, DATA_DIR: dataDir, PORT: String(port), OPS_PORT: String(ops), HOST: '127.0.0.1' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`the compiled runner exited (${child.exitCode})`);
      const res = await fetch(`http://127.0.0.1:${ops}/readyz`).catch(() => undefined);
      return res?.status === 200;
    }, 60_000);
    const health = (await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()) as {
      services: { name: string; status: string }[];
    };
    expect(health.services.filter((s) => s.status === 'down')).toEqual([]);
    // A loader would show in its arguments or NODE_OPTIONS; /proc says what it was started with.
    const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(cmdline.slice(1)).toEqual(['--enable-source-maps', 'services/all-in-one/dist/main.js']);
    const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8');
    expect(environ).not.toMatch(/NODE_OPTIONS/);
  });
});
