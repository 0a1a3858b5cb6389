// The web app's build, shared by `pnpm start` and the browser tests: rebuilt only when a
// source file is newer than web/dist/index.html.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function newestMtime(p) {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(p)) {
    if (name === 'node_modules' || name === 'dist') continue;
    newest = Math.max(newest, newestMtime(path.join(p, name)));
  }
  return newest;
}

/**
 * Builds the web app when a source is newer than the build (always with `force`); false when
 * the build failed.
 * The output goes to WEB_DIST when it is set (the folder the gateway serves), else web/dist,
 * so that two checkouts or test runs can build side by side without sharing one folder.
 */
export function buildWebIfNeeded({ force = false } = {}) {
  const web = path.join(root, 'web');
  const outDir = process.env.WEB_DIST ? path.resolve(root, process.env.WEB_DIST) : path.join(web, 'dist');
  const built = path.join(outDir, 'index.html');
  const sources = Math.max(
    newestMtime(path.join(web, 'src')),
    newestMtime(path.join(web, 'index.html')),
    newestMtime(path.join(web, 'public')),
    newestMtime(path.join(web, 'vite.config.ts')),
    newestMtime(path.join(root, 'services', 'shared', 'contracts', 'src')),
  );
  if (!force && existsSync(built) && statSync(built).mtimeMs >= sources) return true;
  console.log('Building the web app...');
  // Always a production bundle: vitest sets NODE_ENV=test, which would otherwise give the
  // browser tests React's development build (several times slower to render).
  const r = spawnSync('pnpm', ['--filter', '@chronicler/web', 'build', '--outDir', outDir, '--emptyOutDir'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  return r.status === 0;
}
