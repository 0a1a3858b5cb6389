import { afterAll } from 'vitest';

// Integration files share their worker's modules (`isolate: false` in vitest.config.ts), and so
// its process.env: what one file sets there (a short stale-session time, a test's own URL) is
// taken back when it ends, so the next file in that worker starts from the environment it was given.
const given = { ...process.env };

afterAll(() => {
  for (const key of Object.keys(process.env)) if (!(key in given)) delete process.env[key];
  Object.assign(process.env, given);
});
