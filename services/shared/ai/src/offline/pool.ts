/**
 * The offline engine's worker threads, one pool per process (every engine of the process
 * shares it: the embedded runner has three AI services). Threads start on the first task and
 * leave after a minute idle; an idle thread does not keep the process alive. The threads run
 * at AI_OFFLINE_NICE (the first caller's), below the thread that serves requests and sockets.
 */
import type { Logger } from '@chronicler/kit';
import { Piscina } from 'piscina';
import { runOfflineTask, type OfflineTask } from './tasks.ts';

const IDLE_MS = 60_000;
let pool: Piscina<OfflineTask, string> | null = null;
/** Why the pool was given up (a thread could not start): tasks then run on the calling thread. */
let broken: Error | null = null;

/**
 * Runs a task on the pool (`threads` > 0; the first caller sizes it) or, with 0 threads, on the
 * calling thread. An abort stops the task's thread (the pool starts another). Should a thread
 * fail to start, the tasks waiting for it fail and later ones run on the calling thread.
 */
export function runOffline(
  threads: number,
  task: OfflineTask,
  opts: { signal?: AbortSignal | undefined; logger: Logger; nice?: number },
): Promise<string> {
  if (threads <= 0 || broken) {
    try {
      return Promise.resolve(runOfflineTask(task));
    } catch (err) {
      return Promise.reject(err);
    }
  }
  if (!pool) {
    const p = new Piscina<OfflineTask, string>({
      filename: new URL('./worker.mjs', import.meta.url).href,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: IDLE_MS,
      // Each thread lowers its own priority as it starts (worker.mjs).
      workerData: { nice: opts.nice ?? 0 },
    });
    // Without this, a thread that cannot load its module leaves its tasks waiting forever.
    const { logger } = opts;
    p.on('error', (err: Error) => {
      logger.error(
        { err },
        'an offline AI worker thread failed to start; the engine runs on the main thread',
      );
      broken = err;
      if (pool === p) pool = null;
      void p.destroy();
    });
    pool = p;
  }
  return pool.run(task, opts.signal ? { signal: opts.signal } : {});
}
