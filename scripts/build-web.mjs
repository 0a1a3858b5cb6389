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

/** Builds web/dist when a source is newer than the build; false when the build failed. */
export function buildWebIfNeeded() {
  const web = path.join(root, 'web');
  const built = path.join(web, 'dist', 'index.html');
  const sources = Math.max(
    newestMtime(path.join(web, 'src')),
    newestMtime(path.join(web, 'index.html')),
    newestMtime(path.join(web, 'public')),
    newestMtime(path.join(web, 'vite.config.ts')),
    newestMtime(path.join(root, 'services', 'shared', 'contracts', 'src')),
  );
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return true;
  console.log('Building the web app...');
  const r = spawnSync('pnpm', ['--filter', '@chronicler/web', 'build'], { cwd: root, stdio: 'inherit' });
  return r.status === 0;
}
