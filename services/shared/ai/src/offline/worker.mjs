// A worker thread of the offline engine's pool (see pool.ts). The services run their
// TypeScript through tsx (`node --import tsx`), but on Node 20 a worker thread does not get
// the parent's module hooks: when the tasks cannot load as they are, tsx is registered here
// and they load again (under another URL: Node remembers the failed import of the first).
import os from 'node:os';
import { workerData } from 'piscina';

// Batch work below the request path (AI_OFFLINE_NICE, pool.ts). On Linux a thread has its own
// nice value, and setpriority(PRIO_PROCESS, 0) (libuv's uv_os_setpriority with pid 0) sets the
// calling thread's; elsewhere it may set the process's, so it is left alone there.
const nice = Number(workerData?.nice ?? 0);
if (process.platform === 'linux' && nice > 0) {
  try {
    os.setPriority(0, Math.min(19, Math.max(os.getPriority(0), nice)));
  } catch {
    // Not permitted (a container's seccomp profile): the thread runs at the process's priority.
  }
}

let tasks;
try {
  tasks = await import('./tasks.ts');
} catch (err) {
  if (err?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
  const { register } = await import('tsx/esm/api');
  register();
  tasks = await import('./tasks.ts?with-tsx');
}

export default tasks.runOfflineTask;
