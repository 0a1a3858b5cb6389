#!/usr/bin/env node
// `pnpm build`: compiles every service and shared package to JavaScript (dist/, beside src/,
// with source maps), then builds the web app. `--if-stale` (what `pnpm start` uses) compiles
// only packages whose sources are newer than their build and builds the web app only when
// stale; `--services` leaves the web app out.
//
// esbuild compiles file by file (src/a/b.ts -> dist/a/b.js): no bundling, so every module keeps
// its place (`new URL('../migrations', import.meta.url)` and worker files still resolve) and
// its identity, and the packages' dependencies stay where pnpm put them. Relative imports
// `./x.ts` become `./x.js`; `@chronicler/<pkg>[/<sub>]` becomes the file its `exports` name under
// `dist/`, so the built code runs on plain `node` while tests, tsx and tsc keep reading src/.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = '.build-stamp';

/** The workspace packages that run on Node: services/* and services/shared/*. */
export function nodePackages() {
  const dirs = [];
  for (const parent of ['services', 'services/shared']) {
    for (const name of readdirSync(path.join(root, parent))) {
      const dir = path.join(root, parent, name);
      if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'src'))) dirs.push(dir);
    }
  }
  return dirs.map((dir) => ({ dir, pkg: JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) }));
}

// Tests and the shared test suites (which import vitest) stay out of the build.
const isTest = (f) =>
  /\.(test|spec)\.[cm]?ts$/.test(f) || /from ['"]vitest['"]/.test(readFileSync(f, 'utf8'));

function sourceFiles(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (/\.(ts|mts|mjs|js)$/.test(e.name) && !e.name.endsWith('.d.ts') && !isTest(p)) out.push(p);
  }
  return out;
}

function newestMtime(p) {
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, name)));
  return newest;
}

/** A package is stale when a source (or its package.json, or this script) is newer than its build. */
function isStale({ dir }) {
  const stamp = path.join(dir, 'dist', STAMP);
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  const sources = Math.max(
    newestMtime(path.join(dir, 'src')),
    statSync(path.join(dir, 'package.json')).mtimeMs,
    statSync(fileURLToPath(import.meta.url)).mtimeMs,
  );
  return sources > built;
}

/** `@chronicler/kit/telemetry` -> `@chronicler/kit/dist/ops/telemetry.js`, from the package's exports. */
function distSpecifier(spec, packages) {
  const m = /^(@chronicler\/[^/]+)(\/.*)?$/.exec(spec);
  if (!m) return null;
  const target = packages.get(m[1]);
  if (!target) return null;
  const key = `.${m[2] ?? ''}`;
  const exported = typeof target.exports === 'string' && key === '.' ? target.exports : target.exports?.[key];
  if (typeof exported !== 'string' || !exported.startsWith('./src/')) {
    throw new Error(`${spec}: ${m[1]} exports no ./src/ file for "${key}"`);
  }
  return `${m[1]}/dist/${exported.slice('./src/'.length).replace(/\.[cm]?ts$/, '.js')}`;
}

/** Keeps every import external, rewritten to where the compiled file will be. */
function rewriteImports(packages) {
  return {
    name: 'chronicler-imports',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const p = args.path;
        // A JSON file of the package's own (the service declarations) is read into the code that
        // imports it: dist/ holds compiled code only, and the images copy nothing else from src/.
        if (p.startsWith('.') && p.endsWith('.json')) return undefined;
        if (p.startsWith('.')) return { path: p.replace(/\.[cm]?ts(?=$|\?)/, '.js'), external: true };
        return { path: distSpecifier(p, packages) ?? p, external: true };
      });
    },
  };
}

async function compile(targets, packages) {
  const esbuild = await import('esbuild');
  const exportsByName = new Map(packages.map((p) => [p.pkg.name, p.pkg]));
  const common = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    // The maps point at src/ by path; the sources themselves stay out of the output (and images).
    sourcesContent: false,
    logLevel: 'warning',
    plugins: [rewriteImports(exportsByName)],
  };
  await Promise.all(
    targets.map(async ({ dir }) => {
      const src = path.join(dir, 'src');
      const outdir = path.join(dir, 'dist');
      rmSync(outdir, { recursive: true, force: true });
      const files = sourceFiles(src);
      const js = files.filter((f) => !f.endsWith('.mjs'));
      const mjs = files.filter((f) => f.endsWith('.mjs'));
      await esbuild.build({ ...common, entryPoints: js, outbase: src, outdir });
      // .mjs files keep their extension: code names them (a worker's URL).
      if (mjs.length) {
        await esbuild.build({
          ...common,
          entryPoints: mjs,
          outbase: src,
          outdir,
          outExtension: { '.js': '.mjs' },
        });
      }
      writeFileSync(path.join(outdir, STAMP), `${new Date().toISOString()}\n`);
    }),
  );
}

/** Compiles the stale packages (all of them with `force`); returns the names it compiled. */
export async function buildServices({ force = false } = {}) {
  const packages = nodePackages();
  const targets = force ? packages : packages.filter(isStale);
  if (targets.length === 0) return [];
  await compile(targets, packages);
  return targets.map((t) => t.pkg.name);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const ifStale = args.includes('--if-stale');
  const started = Date.now();
  const built = await buildServices({ force: !ifStale });
  console.log(
    built.length
      ? `Compiled ${built.length} packages in ${Date.now() - started} ms`
      : 'Services: the build is current',
  );
  if (!args.includes('--services')) {
    const { buildWebIfNeeded } = await import('./build-web.mjs');
    if (!buildWebIfNeeded({ force: !ifStale })) process.exit(1);
  }
}
