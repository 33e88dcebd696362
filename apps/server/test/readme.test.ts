import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../e2e/harness';
import { seedDataDir } from './db-snapshot';

/**
 * The README's quick-start commands work as written (issue 37 point 16: `SIMULATOR_CONTROL=1 npm start`
 * exited with "the simulator control is refused in production mode"). Every `npm start` command of the
 * README's "Quick start" section is read from the README itself and run through a shell from the
 * repository's root, each on a fresh DATA_DIR (holding the test run's empty migrated database) and a
 * free port, until `/api/ready` answers; the
 * SIMULATOR_CONTROL one also sets a price. Each is then stopped by its process group's id.
 *
 * What differs from a person's terminal, and why: `npm install` is not run (no registry here; the
 * dependencies are installed), SKIP_WEB_BUILD=1 skips the web build (`vite build` takes a minute on a
 * busy machine; the e2e tier builds and drives the app), and CHAIN=off leaves out the embedded chain
 * (its start has its own tests, apps/server/test/chain-*.test.ts). NODE_ENV is removed from the
 * environment (vitest sets `test`), as in a person's shell.
 */

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** The `… npm start` commands of the README's "Quick start" section, in order, without repeats. */
export function quickStartCommands(readme: string): string[] {
  const start = readme.indexOf('## Quick start');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const found: string[] = [];
  // In fenced blocks and in inline code: optional VAR=value words, then `npm start`.
  for (const m of section.matchAll(/(?:^|[`\n])((?:[A-Z_]+=\S+ )*(?:npm install && )?npm start)(?=[`\n])/g)) {
    const cmd = m[1]!.trim();
    if (!found.includes(cmd)) found.push(cmd);
  }
  return found;
}

const temps: string[] = [];
afterAll(() => {
  for (const d of temps) fs.rmSync(d, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  base: string;
  output: () => string;
}

async function run(command: string, extraEnv: Record<string, string> = {}): Promise<Started> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-readme-'));
  temps.push(tmp);
  const port = await freePort();
  // The test run's migrated empty database (global-setup.ts), as e2e servers start: 4 s of CPU less.
  seedDataDir(path.join(tmp, 'data'));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'NODE_ENV') env[k] = v;
  Object.assign(env, {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: path.join(tmp, 'data'),
    SKIP_WEB_BUILD: '1',
    CHAIN: 'off',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'info',
    ...extraEnv,
  });
  // `npm install` needs the registry; the dependencies are here already.
  const shell = command.replace(/^npm install && /, '');
  let out = '';
  // Its own process group (detached), so the stop reaches npm, start.mjs and the server together.
  const child = spawn('sh', ['-c', shell], { cwd: ROOT, env, detached: true, stdio: 'pipe' });
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 80_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`\`${command}\` exited with ${child.exitCode}:\n${out}`);
    }
    // Ready, not only alive: /api/health answers as soon as the process listens, before the app is
    // loaded (issue 45 point 5), and the calls below need the app.
    const ok = await fetch(`${base}/api/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop(child);
      throw new Error(`\`${command}\` did not answer /api/ready in 80 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { child, base, output: () => out };
}

/** SIGTERM to the command's process group (by its id), SIGKILL after 10 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((r) => child.once('exit', r));
  const pid = child.pid;
  process.kill(-pid, 'SIGTERM');
  const timer = setTimeout(() => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 10_000);
  await exited;
  clearTimeout(timer);
}

const commands = quickStartCommands(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));

describe.concurrent("the README's quick start", () => {
  it('lists the start commands this test runs', () => {
    expect(commands).toContain('npm install && npm start');
    expect(commands).toContain('SIMULATOR_CONTROL=1 npm start');
  });

  it.each(commands)(
    '`%s` starts a server that answers /api/ready',
    async (command) => {
      const s = await run(command);
      try {
        if (command.includes('SIMULATOR_CONTROL=1')) {
          // As a well-behaved client: a 503 of the load shedding (a server just started on a busy
          // machine) is tried again after its Retry-After.
          let res: Response;
          for (let attempt = 0; ; attempt++) {
            res = await fetch(`${s.base}/api/dev/market/price`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ exchange: 'binance', symbol: 'BTC/USDT', price: 95_000 }),
            });
            if (res.status !== 503 || attempt >= 5) break;
            const wait = Math.min(2, Number(res.headers.get('retry-after') ?? 1) || 1);
            await new Promise((r) => setTimeout(r, wait * 1000));
          }
          expect(res.status, s.output()).toBe(200);
          expect(await res.json()).toMatchObject({ ok: true, price: 95_000 });
          expect(s.output()).toContain('NODE_ENV=development');
        }
      } finally {
        await stop(s.child);
      }
    },
    120_000,
  );

  it('still refuses the simulator control when NODE_ENV=production is set explicitly', async () => {
    const err = await run('SIMULATOR_CONTROL=1 npm start', { NODE_ENV: 'production' }).then(
      async (s) => {
        await stop(s.child);
        return null;
      },
      (e: unknown) => e as Error,
    );
    expect(err?.message).toContain('the simulator control is refused in production mode');
  }, 120_000);
});
