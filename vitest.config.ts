import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './scripts/vitest-sequencer';

/** The database snapshot and the server bundle, made once per run (apps/server/test/global-setup.ts). */
const SERVER_SETUP = 'apps/server/test/global-setup.ts';

/** Test tiers: unit (packages), api (server through the app factory), fuzz (every API operation under hostile input), web (components), e2e (Chromium). */
export default defineConfig({
  test: {
    // Two test files at a time on the 2-core CI machines (the default there is one): the long files
    // (the SIGKILL crash and market-restart tests, the browser tests) overlap, 820 s → 634 s measured.
    maxWorkers: 2,
    // Longest files first, browser files spread among the others (one at a time): scripts/vitest-sequencer.ts.
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: 'packages',
          // scripts/: the lint rules' own tests (scripts/eslint).
          include: ['packages/*/test/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'scripts/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'server',
          include: ['apps/server/test/**/*.test.ts'],
          environment: 'node',
          globalSetup: [SERVER_SETUP],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'fuzz',
          include: ['apps/server/fuzz/**/*.test.ts'],
          environment: 'node',
          globalSetup: [SERVER_SETUP],
          // One file per group of operations (apps/server/fuzz/harness.ts), side by side on the workers; the
          // files share a worker's loaded server modules (each builds its own app and database), which
          // saves each file's import of the server. One test per operation: the slowest took 3 s with the
          // 2-core machine's load average at 14; 30 s is ten times that.
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      './apps/web/vite.config.ts',
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: [SERVER_SETUP, 'e2e/global-setup.ts'],
          testTimeout: 90_000,
          hookTimeout: 180_000,
          // A page shows what it read after a render or a request: every read of the page is a poll
          // (a lint rule, eslint.config.js), and a busy CI machine gets 10 s, not vitest's 1 s, before a poll fails.
          expect: { poll: { timeout: 10_000, interval: 50 } },
          // The web build started by the global setup is waited for here, before the lock; then one
          // browser, one server per file; one such file at a time (a lock), beside the other tiers.
          setupFiles: ['e2e/web-build-ready.ts', 'e2e/one-at-a-time.ts'],
        },
      },
    ],
  },
});
