#!/usr/bin/env node
// `pnpm start`: compiles the services and builds the web app where their sources are newer
// than the build, then runs Chronicler from the compiled JavaScript on plain node. Embedded
// (default): every service in one process. `--cluster`: each service as its own process
// against NATS_URL, DATABASE_URL and REDIS_URL, restarted if it dies. `--dev` (`pnpm dev`):
// the TypeScript sources through `tsx watch`, each process restarted when a file it loads changes.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { buildWebIfNeeded } from './build-web.mjs';
import { buildServices } from './build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// A .env beside package.json is read first; variables already set in the shell win.
if (existsSync(path.join(root, '.env'))) process.loadEnvFile(path.join(root, '.env'));
const cluster = process.argv.includes('--cluster');
const dev = process.argv.includes('--dev');
// Every folder under services/ with a src/main.ts is a service process (all-in-one is the
// embedded runner, not a service); the gateway starts last so it answers once the rest do.
const SERVICES = readdirSync(path.join(root, 'services'))
  .filter((d) => d !== 'all-in-one' && existsSync(path.join(root, 'services', d, 'src', 'main.ts')))
  .sort((a, b) => Number(a === 'gateway') - Number(b === 'gateway'));

const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');

function run(service, env) {
  const args = dev
    ? [tsx, 'watch', '--clear-screen=false', `services/${service}/src/main.ts`]
    : ['--enable-source-maps', `services/${service}/dist/main.js`];
  return spawn(process.execPath, args, { cwd: root, env, stdio: 'inherit' });
}

if (!dev) {
  const compiled = await buildServices();
  if (compiled.length) console.log(`Compiled ${compiled.join(', ')}`);
}
if (!buildWebIfNeeded()) process.exit(1);

if (!cluster) {
  const child = run('all-in-one', process.env);
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  const missing = ['NATS_URL', 'DATABASE_URL', 'REDIS_URL'].filter((v) => !process.env[v]);
  if (missing.length) {
    console.error(`Cluster mode needs ${missing.join(', ')} (see README: "Cluster mode").`);
    process.exit(78);
  }
  const opsBase = Number(process.env.OPS_PORT_BASE ?? 9464);
  const children = new Map();
  let stopping = false;
  const start = (service, i, restarts = 0) => {
    const env = { ...process.env, OPS_PORT: String(opsBase + i) };
    const child = run(service, env);
    const startedAt = Date.now();
    children.set(service, child);
    child.on('exit', (code, signal) => {
      children.delete(service);
      if (stopping) {
        if (children.size === 0) process.exit(0);
        return;
      }
      // A supervisor, as Kubernetes would be: restart with a growing delay; reset the count
      // once a process has stayed up for a minute.
      const n = Date.now() - startedAt > 60_000 ? 0 : restarts + 1;
      const delay = Math.min(30_000, 500 * 2 ** n);
      console.error(`${service} exited (${signal ?? code}); restarting in ${delay} ms`);
      setTimeout(() => start(service, i, n), delay);
    });
  };
  SERVICES.forEach((s, i) => start(s, i));
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      stopping = true;
      for (const child of children.values()) child.kill('SIGTERM');
      if (children.size === 0) process.exit(0);
    });
  }
}
