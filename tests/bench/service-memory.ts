// `pnpm bench service-memory`: the resident memory (VmRSS, from /proc) of each cluster-mode
// process, one per service started as the image starts it (its compiled dist/main.js on plain
// node with source maps, built here first when stale; not through tsx, which alone adds tens of
// MiB), after start and after a little traffic: the numbers behind the chart's memory requests and limits
// (charts/chronicler/values.yaml, `defaults.resources`). Needs NATS_URL, DATABASE_URL and
// REDIS_URL; says so and does nothing without them.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { localSignIn } from '../support/auth.ts';
import { repoRoot, startSystem } from '../support/system.ts';

const rssMiB = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024);
};

export async function benchServiceMemory(): Promise<void> {
  const missing = ['NATS_URL', 'DATABASE_URL', 'REDIS_URL'].filter((v) => !process.env[v]);
  if (missing.length) {
    console.log(`service-memory: skipped (cluster mode needs ${missing.join(', ')})`);
    return;
  }
  execFileSync(process.execPath, ['scripts/build.mjs', '--services', '--if-stale'], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  const system = await startSystem({
    processes: 'many',
    compiled: true,
    mode: 'cluster',
    env: { AUTH_LOCAL_ENABLED: 'true' },
  });
  try {
    const idle = new Map([...system.children].map(([name, c]) => [name, rssMiB(c.pid!)]));
    const { cookie } = await localSignIn(system.url, 'Memory Meter');
    const headers = {
      cookie: `access_token=${cookie}`,
      'content-type': 'application/json',
      origin: system.url,
    };
    for (let i = 0; i < 20; i++) {
      const made = await fetch(`${system.url}/api/groups`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `Table ${i}` }),
      });
      if (made.status >= 500) throw new Error(`POST /api/groups answered ${made.status}`);
      for (const url of ['/api/transcripts', '/api/groups', '/api/health', '/api/users/stats'])
        await fetch(`${system.url}${url}`, { headers });
    }
    console.log('service-memory: resident MiB per compiled process (idle, after traffic)');
    for (const [name, c] of system.children)
      console.log(
        `  ${name.padEnd(14)} ${String(idle.get(name)).padStart(5)} ${String(rssMiB(c.pid!)).padStart(5)}`,
      );
  } finally {
    await system.stop();
  }
}
