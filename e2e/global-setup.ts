import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { findChromium } from './harness';

/** Builds the web app once for the browser tests (skipped when no Chromium is there to use it). */
export default function setup() {
  if (!findChromium()) return;
  const root = path.resolve(import.meta.dirname, '..');
  const res = spawnSync(path.join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], {
    cwd: path.join(root, 'apps/web'),
    stdio: 'inherit',
    // The build users get: vitest sets NODE_ENV=test, and Vite would then bundle React's development build.
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (res.status !== 0) throw new Error('vite build failed');
}
