import fs from 'node:fs';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirstSequencer from './scripts/vitest-sequencer';

/** The database snapshot and the server bundle, made once per run (apps/server/test/global-setup.ts). */
const SERVER_SETUP = 'apps/server/test/global-setup.ts';

/** Test files under `dir` (from the repository's root), as paths relative to it. */
function testFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(import.meta.dirname, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.test\.tsx?$/.test(f))
    .map((f) => `${dir}/${f.split(path.sep).join('/')}`);
}

/**
 * The files that replace a module with `vi.mock`. The server and web files share a worker's loaded
 * modules (`isolate: false`), and there a module loaded by an earlier file keeps what it imported: a
 * file's mock reached the next file's components, and a later file's mock missed the modules already
 * loaded. These files run in a fresh worker each, in a project of their own.
 */
function mocking(files: string[]): string[] {
  return files.filter((f) =>
    /\bvi\.(?:mock|doMock)\(/.test(fs.readFileSync(path.join(import.meta.dirname, f), 'utf8')),
  );
}

const SERVER_MOCKING = mocking(testFiles('apps/server/test'));
/** The web component test files (apps/web/vite.config.ts's include), relative to apps/web. */
const WEB_TESTS = [...testFiles('apps/web/src'), ...testFiles('apps/web/test')];
const WEB_MOCKING = mocking(WEB_TESTS);
const fromWeb = (files: string[]) => files.map((f) => path.posix.relative('apps/web', f));

/** The server tier's settings, for both of its projects. */
const SERVER_TEST = {
  environment: 'node',
  globalSetup: [SERVER_SETUP],
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

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
          ...SERVER_TEST,
          name: 'server',
          include: ['apps/server/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SERVER_MOCKING],
          // The files share a worker's loaded server modules, as the fuzz files do: the import of the
          // app (Fastify, PGlite, drizzle, ccxt: 2-4 s of CPU in a fresh worker) is paid once per
          // worker, not once per file; each file still builds its own apps and databases.
          isolate: false,
        },
      },
      // (An empty include would mean vitest's default one: every test file of the repository.)
      ...(SERVER_MOCKING.length > 0
        ? [{ test: { ...SERVER_TEST, name: 'server (mocks)', include: SERVER_MOCKING } }]
        : []),
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
      {
        // The files share a worker's loaded modules (React, Mantine, the catalogs: about 1 s of CPU a file
        // in a fresh worker); each file still renders into a cleaned document (apps/web/test/setup.ts).
        extends: './apps/web/vite.config.ts',
        test: { isolate: false, exclude: [...configDefaults.exclude, ...fromWeb(WEB_MOCKING)] },
      },
      {
        // Extending merges the include lists, so this project names what it leaves out.
        extends: './apps/web/vite.config.ts',
        test: {
          name: 'web (mocks)',
          exclude: [...configDefaults.exclude, ...fromWeb(WEB_TESTS.filter((f) => !WEB_MOCKING.includes(f)))],
        },
      },
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
