// Back after a crash (issue 45 point 5): SIGKILL the real server (`main.ts` through tsx, as `npm start`
// runs it; PGlite in its DATA_DIR, 2 running Grid Bot DCA bots) and time its start again, to
// `/api/health` answering (the process serves) and to `/api/ready` (database answers, the runner's first
// reconcile done), with the embedded chain and with CHAIN=off, beside the first start of the install.
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { freePort, startServer } from '../e2e/harness';
import { BENCH_PASSWORD } from './lib/live-server';
import { apiCall } from '../e2e/helpers/api';
import { loginViaApi, registerViaApi } from '../e2e/helpers/accounts';
import type { BenchSection } from './run';

const KILLS = Number(process.env.BENCH_RESTART_KILLS ?? 5);
const ROOT = path.resolve(import.meta.dirname, '..');

interface Start {
  health: number;
  ready: number;
}

/** Starts main.ts on `dataDir` and times spawn -> /api/health 200 and -> /api/ready 200 (ms). */
async function timedStart(
  dataDir: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; start: Start; baseUrl: string }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/server/src/main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: baseUrl,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      BOT_RUNNER: '1',
      ...env,
    },
    stdio: 'ignore',
  });
  let health = NaN;
  const deadline = t0 + 180_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error('server exited during start');
    const route = Number.isNaN(health) ? '/api/health' : '/api/ready';
    const ok = await fetch(`${baseUrl}${route}`).then(
      async (r) => (await r.arrayBuffer(), r.ok),
      () => false,
    );
    if (ok && Number.isNaN(health)) health = performance.now() - t0;
    else if (ok) return { child, start: { health, ready: performance.now() - t0 }, baseUrl };
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill('SIGKILL');
  throw new Error('server did not get ready in 180 s');
}

function kill9(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGKILL');
  return exited;
}

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** An install with 2 running bots (set up through the harness's server), then KILLS kill/restart cycles. */
async function campaign(chain: 'embedded' | 'off') {
  const env = { CHAIN: chain };
  // The first start of an empty install (fresh DATA_DIR: migrations, and the chain deployed when embedded).
  const first = await startServer({ ...env, BOT_RUNNER: '1' }, undefined, { fresh: true });
  const dataDir = first.dataDir;
  const email = `restart-${chain}@example.com`;
  await registerViaApi(first.baseUrl, first.outboxDir, email, BENCH_PASSWORD);
  const token = await loginViaApi(first.baseUrl, email, BENCH_PASSWORD);
  await apiCall(first.baseUrl, token, 'POST', '/api/conectar_exchange', {
    exchange: 'binance',
    mode: 'paper',
  });
  for (const symbol of ['BTC/USDT', 'ETH/USDT']) {
    await apiCall(first.baseUrl, token, 'POST', '/api/start_bot_dca', {
      exchange: 'binance',
      symbol,
      amount: 20,
      tp: 1,
      separacion: 1,
      os: 3,
    });
  }
  await kill9(first.child);
  // The first start of this data directory by timedStart (not counted: the harness's start came first).
  const starts: Start[] = [];
  let current = (await timedStart(dataDir, env)).child;
  try {
    for (let i = 0; i < KILLS; i++) {
      await new Promise((r) => setTimeout(r, 1000)); // the bots trade a moment
      await kill9(current);
      const s = await timedStart(dataDir, env);
      current = s.child;
      starts.push(s.start);
    }
  } finally {
    await kill9(current);
  }
  return starts;
}

/** The first start of an empty install, timed the same way. */
async function freshStart(chain: 'embedded' | 'off'): Promise<Start> {
  const dir = (await import('node:fs')).mkdtempSync(path.join(os.tmpdir(), 'bytx-restart-'));
  const s = await timedStart(dir, { CHAIN: chain });
  await kill9(s.child);
  return s.start;
}

export default async function restartBench(): Promise<BenchSection[]> {
  const rows: string[] = [];
  for (const chain of ['embedded', 'off'] as const) {
    const fresh = await freshStart(chain);
    const starts = await campaign(chain);
    const h = starts.map((s) => s.health);
    const r = starts.map((s) => s.ready);
    const f = (v: number) => (v / 1000).toFixed(2);
    rows.push(
      `| ${chain} | ${f(fresh.health)} / ${f(fresh.ready)} | ${starts.length} | ${f(median(h))} | ${f(Math.max(...h))} | ${f(median(r))} | ${f(Math.max(...r))} |`,
    );
    console.log(rows[rows.length - 1]);
  }
  const markdown = [
    `The real \`main.ts\` through tsx (as \`npm start\` runs it, without the web build), PGlite in its DATA_DIR, the bot`,
    `runner on, 2 running Grid Bot DCA bots on a paper account; ${KILLS} times: SIGKILL, start again on the same`,
    'DATA_DIR, and time from the spawn to `/api/health` answering 200 (the process serves) and to `/api/ready`',
    "answering 200 (the database answers and the runner's first reconcile is done), polled every 25 ms.",
    'Beside it, the first start of an empty install (fresh DATA_DIR: every migration, and with the embedded chain',
    'its contracts deployed). Seconds.',
    `Machine: ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} at the end (other work was running).`,
    '',
    '| chain | empty install: health / ready | kills | health median | health worst | ready median | ready worst |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
  return [{ title: 'Back after a crash: SIGKILL to /api/health and /api/ready', markdown }];
}
