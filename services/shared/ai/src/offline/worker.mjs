// A worker thread of the offline engine's pool (see pool.ts). The services run their
// TypeScript through tsx (`node --import tsx`), but on Node 20 a worker thread does not get
// the parent's module hooks: when the tasks cannot load as they are, tsx is registered here
// and they load again (under another URL: Node remembers the failed import of the first).
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
