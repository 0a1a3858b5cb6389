import { defineConfig } from 'vitest/config';
import { voiceTrustBundle } from '../peers/discord-voice/trust.ts';

// The Discord peer's voice server's own certificate, trusted by the forked workers (as in ../../vitest.config.ts).
process.env.NODE_EXTRA_CA_CERTS = voiceTrustBundle();

// Browser tests: the built web app served by a real gateway, driven in Debian's Chromium
// through playwright-core. One worker: each test file starts its own system and browser,
// and two at once on 2 cores only make both slower.
export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.test.ts'],
    globalSetup: ['tests/e2e/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    // As the integration files (../../vitest.config.ts): the worker keeps the services' modules
    // it loaded for the next file instead of loading them all again, and each file's changes to
    // process.env are taken back when it ends.
    isolate: false,
    setupFiles: ['tests/support/isolate-env.ts'],
  },
});
