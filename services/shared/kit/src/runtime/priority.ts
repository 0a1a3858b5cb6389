import { readdirSync } from 'node:fs';
import os from 'node:os';

/**
 * Lowers the CPU priority of every thread of this process to `nice` (Linux: 0 is the default,
 * 19 the lowest; lowering needs no privilege). Linux keeps a nice value per thread, so the
 * threads that already run (V8's, libuv's) are set one by one; those started later inherit the
 * value of the thread that starts them. Elsewhere the process as a whole. Returns how many
 * threads now run at `nice`.
 */
export function lowerProcessPriority(nice: number): number {
  let threads: number[];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    threads = [0];
  }
  let lowered = 0;
  for (const tid of threads) {
    try {
      // Only ever lower: a thread already below (a niced worker pool) keeps its own value.
      if (os.getPriority(tid) < nice) os.setPriority(tid, nice);
      lowered++;
    } catch {
      // the thread has ended since the listing
    }
  }
  return lowered;
}
