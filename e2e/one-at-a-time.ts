import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * One browser test file at a time (each starts its own server and Chromium; two at once on the 2-core
 * machines make both slow and flaky), while the other worker runs API and unit tests. A directory
 * created atomically is the lock; it names the holder's pid so a lock left by a killed worker is taken
 * over. Scoped to this vitest run (the workers' parent pid).
 */
const LOCK = path.join(os.tmpdir(), `bytx-e2e-lock-${process.ppid}`);
const PID_FILE = path.join(LOCK, 'pid');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      fs.writeFileSync(PID_FILE, String(process.pid));
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder = 0;
    try {
      holder = Number(fs.readFileSync(PID_FILE, 'utf8')) || 0;
    } catch {
      // Created, pid not written yet: its holder is alive.
    }
    if (holder > 0 && !alive(holder)) fs.rmSync(LOCK, { recursive: true, force: true });
    await new Promise((r) => setTimeout(r, 250));
  }
}, 300_000);

afterAll(() => {
  let holder = 0;
  try {
    holder = Number(fs.readFileSync(PID_FILE, 'utf8')) || 0;
  } catch {
    return;
  }
  if (holder === process.pid) fs.rmSync(LOCK, { recursive: true, force: true });
});
