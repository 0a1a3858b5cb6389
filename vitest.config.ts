import { defineConfig } from 'vitest/config';
import { voiceTrustBundle } from './tests/peers/discord-voice/trust.ts';

// The Discord peer's voice server speaks TLS with its own certificate (@discordjs/voice always
// dials wss://): the test workers, forked from here, trust it from their start.
process.env.NODE_EXTRA_CA_CERTS = voiceTrustBundle();

const shared = {
  exclude: ['**/node_modules/**', '**/dist/**'],
  // 60 s: on the 2-core CI machine a test that starts PGlite from scratch (initdb in WASM) next to
  // a many-process integration test once took over 30 s; a hung test still fails, later.
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
};

// Unit tests sit beside the code (services and web; a web test that renders declares
// `// @vitest-environment happy-dom`); whole-system tests live in tests/integration. Browser
// tests (tests/e2e) have their own config because they need a built web app and Chromium.
export default defineConfig({
  test: {
    // 2 cores: more workers only make the PGlite and NATS suites fight for the CPU.
    maxWorkers: 2,
    projects: [
      { test: { ...shared, name: 'unit', include: ['services/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'] } },
      {
        test: {
          ...shared,
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          // Each file starts and stops whole systems of its own and mocks nothing: a worker keeps
          // the modules it loaded for its next file instead of loading every service again
          // (about a third of an integration file's time on 2 cores was that import).
          isolate: false,
          setupFiles: ['tests/support/isolate-env.ts'],
        },
      },
    ],
  },
});
