import { createLogger } from '@chronicler/kit';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runOffline } from './pool.ts';

// A file of its own: the pool is one per process, sized (and niced) by its first caller.
const logger = createLogger('pool-nice-test', { level: 'silent' });

/** The nice value of each thread of this process (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: the fields after it follow its closing ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    nices.set(Number(tid), Number(fields[16]));
  }
  return nices;
}

describe.runIf(process.platform === 'linux')('the offline engine threads', () => {
  it('run below the thread that serves requests (AI_OFFLINE_NICE), which keeps its priority', async () => {
    const before = threadNices();
    const summary = await runOffline(
      1,
      { kind: 'session', input: { name: 'Rain', transcript: '[00:00:01] Matt: The rain falls on the inn.' } },
      { logger, nice: 10 },
    );
    expect(summary.length).toBeGreaterThan(0);
    const after = threadNices();
    const started = [...after].filter(([tid]) => !before.has(tid));
    // The pool's thread is new and niced; the main thread (tid = pid) is not.
    expect(started.map(([, nice]) => nice)).toContain(10);
    expect(after.get(process.pid)).toBe(before.get(process.pid));
    expect(after.get(process.pid)).toBe(0);
  });
});
