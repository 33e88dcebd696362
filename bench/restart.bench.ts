// Back after a crash (issue 45 point 5): SIGKILL the real server (the bundle `npm start` runs,
// scripts/server-bundle.ts; BENCH_RESTART_RUN=tsx runs `main.ts` through tsx as before; PGlite in its
// DATA_DIR, 2 running Grid Bot DCA bots) and time its start again, to `/api/health` answering (the
// process serves) and to `/api/ready` (database answers, the runner's first reconcile done: the bots
// trade again), with the embedded chain and with CHAIN=off, beside the first start of the install. Each
// start's phases (main.ts's "start phases" log line, lib/start-phases.ts) are kept: per-phase times are
// far less noisy than totals on a shared machine.
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { buildServerBundle } from '../scripts/server-bundle';
import { freePort, startServer } from '../e2e/harness';
import { BENCH_PASSWORD } from './lib/live-server';
import { apiCall } from '../e2e/helpers/api';
import { loginViaApi, registerViaApi } from '../e2e/helpers/accounts';
import type { BenchSection } from './run';

const KILLS = Number(process.env.BENCH_RESTART_KILLS ?? 20);
const ROOT = path.resolve(import.meta.dirname, '..');
const RUN = process.env.BENCH_RESTART_RUN === 'tsx' ? 'tsx' : 'bundle';
/** The command's arguments (after node): as scripts/start.mjs runs the server. */
let serverArgs: string[] = [];

interface Start {
  health: number;
  ready: number;
  /** The start's phases (ms each), from its "start phases" log line; empty if none came. */
  phases: Record<string, number>;
}

/** Starts main.ts on `dataDir` and times spawn -> /api/health 200 and -> /api/ready 200 (ms). */
async function timedStart(
  dataDir: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; start: Start; baseUrl: string }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn(process.execPath, serverArgs, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: baseUrl,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      BOT_RUNNER: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const phases: Record<string, number> = {};
  let tail = '';
  child.stdout?.on('data', (d: Buffer) => {
    const lines = (tail + d.toString()).split('\n');
    tail = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.includes('"start phases')) continue;
      try {
        Object.assign(phases, (JSON.parse(line) as { phases?: Record<string, number> }).phases);
      } catch {
        // not a JSON line
      }
    }
  });
  let health = NaN;
  const deadline = t0 + 180_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited during start: ${stderr}`);
    const route = Number.isNaN(health) ? '/api/health' : '/api/ready';
    const ok = await fetch(`${baseUrl}${route}`).then(
      async (r) => (await r.arrayBuffer(), r.ok),
      () => false,
    );
    if (ok && Number.isNaN(health)) health = performance.now() - t0;
    else if (ok) return { child, start: { health, ready: performance.now() - t0, phases }, baseUrl };
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
async function campaign(chain: 'embedded' | 'off', installed: string) {
  const env = { CHAIN: chain };
  // The first start of an empty install (fresh DATA_DIR: migrations, and the chain deployed when embedded).
  // On the install the first start just made (a second empty install's cluster creation took over the
  // harness's 120 s at load 22).
  const first = await startServer({ ...env, BOT_RUNNER: '1' }, installed);
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
      await new Promise((r) => setTimeout(r, 1000)); // the bots trade a moment (and the phases are logged)
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
async function freshStart(chain: 'embedded' | 'off'): Promise<{ start: Start; dir: string }> {
  const dir = (await import('node:fs')).mkdtempSync(path.join(os.tmpdir(), 'bytx-restart-'));
  const s = await timedStart(dir, { CHAIN: chain });
  await kill9(s.child);
  return { start: s.start, dir };
}

/** Median of each phase over the starts that logged it (ms). */
function phaseMedians(starts: Start[]): string {
  const names = [...new Set(starts.flatMap((s) => Object.keys(s.phases)))];
  return names
    .map((n) => {
      const v = starts.map((s) => s.phases[n]).filter((x): x is number => x !== undefined);
      return `${n} ${Math.round(median(v))} (${v.length})`;
    })
    .join(', ');
}

export default async function restartBench(): Promise<BenchSection[]> {
  const bundle = await buildServerBundle();
  // The harness's own starts (the install's set-up) run the same bundle.
  process.env.BYTX_SERVER_BUNDLE = bundle;
  serverArgs =
    RUN === 'tsx'
      ? ['--import', 'tsx', path.join(ROOT, 'apps/server/src/main.ts')]
      : ['--enable-source-maps', bundle];
  const rows: string[] = [];
  const phaseRows: string[] = [];
  const load0 = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
  // BENCH_RESTART_CHAINS=off: one of the two campaigns only.
  const chains = (process.env.BENCH_RESTART_CHAINS ?? 'embedded,off').split(',') as ('embedded' | 'off')[];
  for (const chain of chains) {
    const { start: fresh, dir } = await freshStart(chain);
    const starts = await campaign(chain, dir);
    const h = starts.map((s) => s.health);
    const r = starts.map((s) => s.ready);
    const f = (v: number) => (v / 1000).toFixed(2);
    rows.push(
      `| ${chain} | ${f(fresh.health)} / ${f(fresh.ready)} | ${starts.length} | ${f(median(h))} | ${f(Math.max(...h))} | ${f(median(r))} | ${f(Math.max(...r))} |`,
    );
    console.log(rows[rows.length - 1]);
    phaseRows.push(`- ${chain}: ${phaseMedians(starts)}`);
    console.log(phaseRows[phaseRows.length - 1]);
  }
  const markdown = [
    `The real server (${RUN === 'tsx' ? '`main.ts` through tsx' : 'the bundle `npm start` builds and runs, scripts/server-bundle.ts'}, without the web build), PGlite in its DATA_DIR, the bot`,
    `runner on, 2 running Grid Bot DCA bots on a paper account; ${KILLS} times: SIGKILL, start again on the same`,
    'DATA_DIR, and time from the spawn to `/api/health` answering 200 (the process serves) and to `/api/ready`',
    "answering 200 (the database answers and the runner's first reconcile is done), polled every 25 ms.",
    'Beside it, the first start of an empty install (fresh DATA_DIR: every migration, and with the embedded chain',
    'its contracts deployed). Seconds.',
    `Machine: ${os.cpus().length} cores, load average ${load0} at the start and ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} at the end (other work was running).`,
    '',
    '| chain | empty install: health / ready | kills | health median | health worst | ready median | ready worst |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    "Median ms of each start phase over the restarts (how many logged it), in order: `config` is Node's start",
    "and main's few modules, `listening` the early listener (health answers from here), `import` the app's",
    "code, `database open` PGlite's start and recovery, then migrations check, sealed secrets, plugins,",
    'web assets, `app ready` (onReady hooks; the app takes over), `first reconcile` (after ready: the runner),',
    '`chain` (its own track, beside the rest):',
    '',
    ...phaseRows,
  ].join('\n');
  return [
    {
      title: `Back after a crash: SIGKILL to /api/health and /api/ready (${RUN === 'tsx' ? 'tsx' : 'bundle'})`,
      markdown,
    },
  ];
}
