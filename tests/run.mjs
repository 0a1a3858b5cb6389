#!/usr/bin/env node
// `pnpm test`: the whole suite. Unit and integration tests run in embedded mode always
// (PGlite, the in-process bus, memory locks: no server needed), then those whose behaviour
// depends on the mode again in cluster mode when NATS_URL, DATABASE_URL and REDIS_URL are
// all set; browser tests run when Chromium is installed. What is skipped is said plainly,
// and the last line sums it up.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const extra = process.argv.slice(2);
const CLUSTER_VARS = ['NATS_URL', 'DATABASE_URL', 'REDIS_URL'];
const totals = { passed: 0, failed: 0, skipped: 0 };
const skippedPhases = [];
const failures = [];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'chronicler-test-'));
let ok = true;

function vitest(label, env, args = []) {
  const out = path.join(tmp, `${label}.json`);
  console.log(`\n=== ${label} ===`);
  const r = spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${out}`,
      ...args,
      ...extra,
    ],
    { cwd: root, env, stdio: 'inherit' },
  );
  if (existsSync(out)) {
    const report = JSON.parse(readFileSync(out, 'utf8'));
    totals.passed += report.numPassedTests;
    totals.failed += report.numFailedTests;
    totals.skipped += report.numPendingTests + report.numTodoTests;
    for (const file of report.testResults ?? []) {
      const where = path.relative(root, file.name);
      const failed = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
      for (const t of failed) {
        failures.push(`${label}: ${where} > ${t.fullName}\n    ${firstLine(t.failureMessages)}`);
      }
      // A file that failed before any test ran (an import error, a hook that threw).
      if (file.status === 'failed' && failed.length === 0) {
        failures.push(`${label}: ${where}\n    ${firstLine([file.message])}`);
      }
    }
    console.log(
      `${label}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests + report.numTodoTests} skipped`,
    );
  }
  if (r.status !== 0) ok = false;
}

function firstLine(messages) {
  const text = (messages ?? []).filter(Boolean).join('\n');
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '(no message)';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

// The processes the tests start (a service per process, the embedded runner, the replay and
// admin CLIs) run the compiled services, as the images do: built here once, and again only
// when a source is newer than its build (tests/support/system.ts `nodeEntry`).
const build = spawnSync(
  process.execPath,
  [path.join(root, 'scripts/build.mjs'), '--services', '--if-stale'],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
if (build.status !== 0) {
  console.log('the services did not build: see above');
  process.exit(1);
}
process.env.CHRONICLER_TEST_COMPILED = '1';

const base = { ...process.env };
for (const v of CLUSTER_VARS) delete base[v];

vitest('embedded', { ...base, CHRONICLER_TEST_MODE: 'embedded' });

// The tests whose behaviour depends on the mode: every integration test (each starts a system
// in the mode it is given, or says it runs in one mode only), and the unit tests that read the
// mode or the servers' addresses. The other unit tests would only run the same code again.
const MODE_DEPENDENT = /\btestMode\b|CHRONICLER_TEST_MODE|process\.env\.(NATS_URL|DATABASE_URL|REDIS_URL)/;
function clusterFiles() {
  const unit = [];
  const walk = (dir) => {
    for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory() && e.name !== 'node_modules' && e.name !== 'dist') walk(rel);
      else if (
        /\.test\.tsx?$/.test(e.name) &&
        MODE_DEPENDENT.test(readFileSync(path.join(root, rel), 'utf8'))
      )
        unit.push(rel);
    }
  };
  walk('services');
  walk('web/src');
  return ['tests/integration/', ...unit];
}

const missing = CLUSTER_VARS.filter((v) => !process.env[v]);
if (missing.length === 0) {
  // A filter given on the command line (`pnpm test live-order`) picks the files in both modes.
  const filtered = extra.some((a) => !a.startsWith('-'));
  vitest('cluster', { ...process.env, CHRONICLER_TEST_MODE: 'cluster' }, filtered ? [] : clusterFiles());
} else {
  skippedPhases.push(`cluster mode (not set: ${missing.join(', ')})`);
}

const e2eConfig = path.join(root, 'tests/e2e/vitest.config.ts');
if (existsSync(e2eConfig)) {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (existsSync(chromium))
    vitest('browser', { ...base, CHRONICLER_TEST_MODE: 'embedded' }, ['--config', e2eConfig]);
  else skippedPhases.push(`browser tests (no Chromium at ${chromium}; apt-get install chromium)`);
}

rmSync(tmp, { recursive: true, force: true });
for (const s of skippedPhases) console.log(`Skipped: ${s}`);
// The failures come last, so that the tail of a long CI log still names them.
if (failures.length > 0) console.log(`\nfailed:\n${failures.join('\n')}`);
console.log(`\ntotal: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(ok && totals.failed === 0 ? 0 : 1);
