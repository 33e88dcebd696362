import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findChromium } from './harness';

/** Names the file the web build's outcome is written to ('ok' or why it failed); read by the e2e files. */
const STATUS_ENV = 'BYTX_WEB_BUILD_STATUS';

/**
 * Starts the web app's build for the browser tests (skipped when no Chromium is there to use it) and
 * returns at once: vitest runs every project's global setup before any test file, and the build (about
 * 7 s of CPU, 10-30 s on the 2-core machine under the run's load) held back the package, API and web
 * files too. The e2e files wait for it (`waitForWebBuild`, from e2e/web-build-ready.ts); nothing else
 * reads apps/web/dist (the API tests' apps run with WEB_DIST_DIR elsewhere).
 */
export default function setup(): (() => Promise<void>) | undefined {
  if (!findChromium()) return undefined;
  const root = path.resolve(import.meta.dirname, '..');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-web-build-'));
  const statusFile = path.join(dir, 'status');
  // The workers start after every global setup and inherit this environment.
  process.env[STATUS_ENV] = statusFile;
  const report = (status: string) => {
    // Written beside, then renamed: a reader sees the whole outcome or none.
    fs.writeFileSync(`${statusFile}.tmp`, status);
    fs.renameSync(`${statusFile}.tmp`, statusFile);
  };
  const child = spawn(path.join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], {
    cwd: path.join(root, 'apps/web'),
    stdio: ['ignore', 'inherit', 'inherit'],
    // The build users get: vitest sets NODE_ENV=test, and Vite would then bundle React's development build.
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const finished = new Promise<void>((resolve) => {
    child.once('error', (err) => {
      report(`vite build did not start: ${String(err)}`);
      resolve();
    });
    child.once('close', (code, signal) => {
      report(code === 0 ? 'ok' : `vite build failed (exit ${code ?? signal})`);
      resolve();
    });
  });
  return async () => {
    // A run that ends first (a filter without e2e files, a cancelled run): the build is ours, by its PID.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await finished;
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

/** Resolves once the global setup's web build has ended well; throws with its failure, or after `timeoutMs`. */
export async function waitForWebBuild(timeoutMs: number): Promise<void> {
  const statusFile = process.env[STATUS_ENV];
  // No build started (no Chromium: the browser tests skip; or a run without this global setup).
  if (!statusFile) return;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let status: string | undefined;
    try {
      status = fs.readFileSync(statusFile, 'utf8');
    } catch {
      // Still building.
    }
    if (status === 'ok') return;
    if (status !== undefined) throw new Error(status);
    if (Date.now() > deadline) throw new Error(`the web build did not end within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
