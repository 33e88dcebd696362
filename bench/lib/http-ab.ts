// The HTTP read A/B of issue 39 point 5, built so the machine's drift falls on both trees: four servers
// (each tree's `apps/server/src/main.ts`, as bench/http.bench.ts starts it, two per tree, started A B B A)
// run at the same time, seeded alike through the public API, and each polled read is measured on every
// server in turn (the first rotating each round), several rounds. The measure is the server's own CPU per request
// (utime + stime of its pid from /proc over the run, µs), which the client's share of the 2 cores and a
// busy neighbour move far less than req/s; req/s and p99 are kept beside it.
//
//   node --import tsx bench/lib/http-ab.ts <treeA> <treeB> [rounds=5]
//   AB_SECONDS (3) per measured run, AB_TITLE: when set, the table is written to bench/RESULTS.md
//   under that title; otherwise only printed. AB_CALLS: a comma list of call names to measure (all ten
//   by default). AB_PROFILE_DIR: both servers run with --cpu-prof into <dir>/A and <dir>/B, and the
//   requests each served in the measured phase are printed (`@@requests`) to weigh the profiles by.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { simulatedSymbols } from '@bytx/venues';
import { loginViaApi, registerViaApi } from '../../e2e/helpers/accounts';
import { apiCall } from '../../e2e/helpers/api';
import { freePort } from '../../e2e/harness';
import { writeResultsSection } from './results-section';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: {
  url: string;
  method: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
  body?: string;
}) => Promise<AutocannonResult>;

const [treeA, treeB, roundsArg] = process.argv.slice(2);
if (!treeA || !treeB) throw new Error('usage: http-ab.ts <treeA> <treeB> [rounds]');
const ROUNDS = Number(roundsArg ?? 5);
const SECONDS = Number(process.env.AB_SECONDS ?? 3);
const CONNECTIONS = 100;
const EMAIL = 'bench-http@example.com';
const PASSWORD = 'violet-harbor-73';
/** The seed of the HTTP read bench as it was before issue 39 (A's bench/http.bench.ts). */
const ACTIVE_BOTS = 20;
const CLOSED_BOTS = 4;
const LOTS_SOLD = 6;
/** Linux's clock tick for /proc/<pid>/stat (USER_HZ, 100 on every common kernel). */
const TICKS_PER_S = 100;

interface Server {
  tree: string;
  base: string;
  child: ChildProcess;
  dataDir: string;
  token: string;
}

function cpuTicks(pid: number): number {
  // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

/** CPU ticks of each thread of `pid`, summed by the thread's name (main, V8's GC helpers, libuv's pool…). */
function threadTicks(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const comm = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const name = tid === String(pid) ? 'main thread' : comm;
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(name, (out.get(name) ?? 0) + Number(f[11]) + Number(f[12]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}
/** Per side, thread name → ticks spent in measured runs. */
const byThread = { a: new Map<string, number>(), b: new Map<string, number>() };

async function start(tree: string, name: string): Promise<Server> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-http-ab-'));
  let output = '';
  const profile = process.env.AB_PROFILE_DIR
    ? [`--cpu-prof`, `--cpu-prof-dir=${path.join(process.env.AB_PROFILE_DIR, name)}`]
    : [];
  const child = spawn(
    process.execPath,
    [...profile, '--import', 'tsx', path.join(tree, 'apps/server/src/main.ts')],
    {
      cwd: tree,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        // Every kind of shedding off in both (each tree reads its own names, ignores the other's): a 503 is
        // not an answer, and the per-turn admission (32 a turn by default) defers requests to later turns,
        // work that belongs to the shedding's own bench, not to the read path's.
        SHED_MAX_IN_FLIGHT: '0',
        SHED_MAX_PER_TURN: '0',
        SHED_MAX_QUEUE_MS: '0',
        SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${tree}: server exited:\n${output}`);
    // /api/ready where the tree has it (A answers 404 there: its /api/health checked the database).
    const ready = await fetch(`${base}/api/ready`).then(
      async (r) => r.ok || (r.status === 404 && (await fetch(`${base}/api/health`)).ok),
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${tree}: not ready in 300 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await registerViaApi(base, path.join(dataDir, 'outbox'), EMAIL, PASSWORD);
  const token = await loginViaApi(base, EMAIL, PASSWORD);
  return { tree, base, child, dataDir, token };
}

async function seed(s: Server): Promise<string[]> {
  const call = (method: 'GET' | 'POST', p: string, body?: unknown) =>
    apiCall(s.base, s.token, method, p, body);
  await call('POST', '/api/conectar_exchange', { exchange: 'binance', mode: 'paper' });
  const pairs = simulatedSymbols()
    .filter((x) => x.endsWith('/USDT'))
    .slice(0, ACTIVE_BOTS + CLOSED_BOTS);
  for (const symbol of pairs)
    await call('POST', '/api/start_bot_dca', {
      exchange: 'binance',
      symbol,
      amount: 20,
      tp: 1,
      separacion: 1,
      os: 3,
    });
  for (const symbol of pairs.slice(ACTIVE_BOTS))
    await call('POST', '/api/stop_bot_dca', { exchange: 'binance', symbol, mode: 'close_market' });
  const open = await call('GET', '/api/dca/pending_orders?per_page=200');
  for (const lot of ((open.orders ?? []) as { id: string }[]).slice(0, LOTS_SOLD))
    await call('POST', '/api/dca/pending_orders/sell', { id: lot.id });
  return pairs.slice(0, ACTIVE_BOTS);
}

interface Call {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

/** The ten polled reads of A's bench, with the queries and bodies the web app sends. */
function calls(active: string[]): Call[] {
  const q = `user_id=${encodeURIComponent(EMAIL)}`;
  return [
    { name: '/api/me', method: 'GET', path: '/api/me' },
    { name: 'bots_activos_dca', method: 'GET', path: `/api/bots_activos_dca?${q}` },
    { name: 'bots_activos', method: 'GET', path: `/api/bots_activos?${q}` },
    { name: 'historial', method: 'GET', path: '/api/historial' },
    {
      name: 'dca/pending_orders',
      method: 'GET',
      path: `/api/dca/pending_orders?${q}&exchange=binance&symbol=${encodeURIComponent(active[0]!)}&page=1&per_page=6`,
    },
    { name: 'dca/all_history', method: 'GET', path: `/api/dca/all_history?${q}&page=1&per_page=20` },
    {
      name: 'pnls_actuales',
      method: 'POST',
      path: '/api/pnls_actuales',
      body: { user_id: EMAIL, bots: active.map((symbol) => ({ symbol, exchange: 'binance' })) },
    },
    { name: 'precios_actuales', method: 'POST', path: '/api/precios_actuales', body: { user_id: EMAIL } },
    { name: 'gridbot/activos', method: 'POST', path: '/api/gridbot/activos', body: { user_id: EMAIL } },
    {
      name: 'historial_arbitraje',
      method: 'POST',
      path: '/api/historial_arbitraje',
      body: { user_id: EMAIL },
    },
  ];
}

interface Run {
  cpuUsPerReq: number;
  requests: number;
  rps: number;
  p99: number;
  failures: number;
  /** Non-2xx answers by status, and 'errors'/'timeouts' (connection-level), when any. */
  failed: string;
}

async function measure(s: Server, call: Call, seconds: number): Promise<Run> {
  const pid = s.child.pid!;
  const opts = {
    url: `${s.base}${call.path}`,
    method: call.method,
    connections: CONNECTIONS,
    headers: {
      authorization: `Bearer ${s.token}`,
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  };
  await autocannon({ ...opts, duration: 0.5 });
  const before = cpuTicks(pid);
  const r = await autocannon({ ...opts, duration: seconds });
  const ticks = cpuTicks(pid) - before;
  return {
    cpuUsPerReq: ((ticks / TICKS_PER_S) * 1e6) / Math.max(1, r.requests.total),
    requests: r.requests.total,
    rps: r.requests.average,
    p99: r.latency.p99,
    failures: r.non2xx + r.errors,
    failed: [
      ...Object.entries(r.statusCodeStats ?? {})
        .filter(([code]) => !code.startsWith('2'))
        .map(([code, v]) => `${code}×${v.count}`),
      ...(r.errors ? [`errors×${r.errors} (timeouts ${r.timeouts})`] : []),
    ].join(' '),
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const sum = (rs: Run[]) => rs.reduce((n, r) => n + r.failures, 0);
const sha = (tree: string) => {
  try {
    const head = fs.readFileSync(path.join(tree, '.git'), 'utf8');
    const dir = head.startsWith('gitdir:') ? head.slice(7).trim() : path.join(tree, '.git');
    return fs.readFileSync(path.join(dir, 'HEAD'), 'utf8').trim().slice(0, 7);
  } catch {
    return path.basename(tree);
  }
};

/** The start order of the four servers: each tree has one early and one late place (A B B A). */
const LAYOUT: ('a' | 'b')[] = ['a', 'b', 'b', 'a'];

const servers: Server[] = [];
try {
  for (const [i, side] of LAYOUT.entries())
    servers.push(await start(path.resolve(side === 'a' ? treeA : treeB), `${side.toUpperCase()}${i}`));
  const actives = [];
  for (const s of servers) actives.push(await seed(s));
  // The bots just started place their first orders: let them settle before measuring.
  await new Promise((r) => setTimeout(r, 20_000));
  const only = process.env.AB_CALLS?.split(',').filter(Boolean);
  const list = calls(actives[0]!).filter((c) => !only || only.includes(c.name));
  const measuredAt = process.hrtime.bigint();
  const runs = new Map<string, { a: Run[]; b: Run[] }>(list.map((c) => [c.name, { a: [], b: [] }]));
  /** Per call and round, the CPU and requests of each side summed over its two servers. */
  const rounds = new Map<string, { a: [number, number]; b: [number, number] }[]>(
    list.map((c) => [c.name, []]),
  );
  const loads: number[] = [os.loadavg()[0]!];
  /** Each server's own CPU with no request in flight (its bots, the paper market), µs per second. */
  const idle = { a: [] as number[], b: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const before = servers.map((s) => cpuTicks(s.child.pid!));
    await new Promise((r) => setTimeout(r, 3000));
    servers.forEach((s, i) =>
      idle[LAYOUT[i]!].push(((cpuTicks(s.child.pid!) - before[i]!) / TICKS_PER_S / 3) * 1e6),
    );
    for (const call of list) {
      // A B B A, then A B B A reversed (the same), shifted by one each round so every server is first
      // in turn: no place in the sequence belongs to one tree.
      const order = servers.map((_, i) => (i + round) % servers.length);
      const sums = { a: [0, 0] as [number, number], b: [0, 0] as [number, number] };
      for (const i of order) {
        const side = LAYOUT[i]!;
        const t0 = threadTicks(servers[i]!.child.pid!);
        const r = await measure(servers[i]!, call, SECONDS);
        for (const [name, t] of threadTicks(servers[i]!.child.pid!))
          byThread[side].set(name, (byThread[side].get(name) ?? 0) + t - (t0.get(name) ?? 0));
        // Counted and shown, not fatal: a busy machine times out a few of 100 connections' requests.
        if (r.failures > 0) console.log(`${call.name} on ${side.toUpperCase()}${i}: ${r.failed}`);
        runs.get(call.name)![side].push(r);
        sums[side][0] += r.cpuUsPerReq * r.requests;
        sums[side][1] += r.requests;
      }
      rounds.get(call.name)!.push(sums);
    }
    loads.push(os.loadavg()[0]!);
    console.log(`round ${round + 1}/${ROUNDS} done (load ${os.loadavg()[0]!.toFixed(1)})`);
  }
  const f1 = (n: number) => n.toFixed(1);
  const perReq = ([cpu, n]: [number, number]) => cpu / Math.max(1, n);
  const lines = [
    `A = \`${sha(path.resolve(treeA))}\`, B = \`${sha(path.resolve(treeB))}\`: four servers up at once, started A B B A (so each tree has an early and a late place: the server started later measured up to ×1.2 slower than the first in a two-server layout, whichever tree it was), ${ROUNDS} rounds; in each round every call runs ${SECONDS} s at ${CONNECTIONS} connections on each server in turn, the first server rotating each round. ${new Date().toISOString().slice(0, 16)} UTC, load ${loads.map((l) => l.toFixed(1)).join(' → ')}. CPU per request: the server process's utime + stime over the run ÷ requests answered; a round's B ÷ A is the CPU per request of B's two servers together ÷ A's two; the ratio column is the median of the rounds'.`,
    '',
    '| call | A µs/req | B µs/req | B ÷ A | per-round B ÷ A | A req/s | B req/s | A p99 | B p99 | failed A / B |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---:|',
  ];
  const ratios: number[] = [];
  for (const call of list) {
    const { a: ra, b: rb } = runs.get(call.name)!;
    const per = rounds.get(call.name)!.map((x) => perReq(x.b) / perReq(x.a));
    ratios.push(median(per));
    lines.push(
      `| \`${call.name}\` | ${f1(median(ra.map((r) => r.cpuUsPerReq)))} | ${f1(median(rb.map((r) => r.cpuUsPerReq)))} | ×${median(per).toFixed(2)} | ${per.map((x) => x.toFixed(2)).join(' ')} | ${Math.round(median(ra.map((r) => r.rps)))} | ${Math.round(median(rb.map((r) => r.rps)))} | ${median(ra.map((r) => r.p99))} | ${median(rb.map((r) => r.p99))} | ${sum(ra)} / ${sum(rb)} |`,
    );
  }
  const geo = Math.exp(ratios.reduce((n, r) => n + Math.log(r), 0) / ratios.length);
  lines.push(
    '',
    `Geometric mean of the calls' B ÷ A: ×${geo.toFixed(3)}; largest ×${Math.max(...ratios).toFixed(2)}, smallest ×${Math.min(...ratios).toFixed(2)}.`,
    `Idle CPU of each server between rounds (no request; its ${ACTIVE_BOTS} bots and the paper market), median: A ${Math.round(median(idle.a) / 1e4)} %, B ${Math.round(median(idle.b) / 1e4)} % of a core.`,
  );
  const served = (side: 'a' | 'b') =>
    [...runs.values()].reduce((n, x) => n + x[side].reduce((m, r) => m + r.requests, 0), 0);
  const names = [...new Set([...byThread.a.keys(), ...byThread.b.keys()])];
  const us = (side: 'a' | 'b', name: string) =>
    (((byThread[side].get(name) ?? 0) / TICKS_PER_S) * 1e6) / Math.max(1, served(side));
  lines.push(
    '',
    'CPU per request by thread (all calls; the warm-up half-second of each run included, so a little above the table): ' +
      names
        .filter((n) => us('a', n) + us('b', n) >= 0.5)
        .map((n) => `${n} ${f1(us('a', n))} → ${f1(us('b', n))} µs`)
        .join(', ') +
      '.',
  );
  const table = lines.join('\n');
  console.log(
    `@@requests A=${served('a')} B=${served('b')} measured_s=${Number(process.hrtime.bigint() - measuredAt) / 1e9}`,
  );
  console.log(table);
  if (process.env.AB_TITLE) writeResultsSection(process.env.AB_TITLE, table);
} finally {
  for (const s of servers) {
    if (s.child.exitCode === null) {
      const exited = new Promise((r) => s.child.once('exit', r));
      s.child.kill('SIGTERM');
      const t = setTimeout(() => s.child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    }
    fs.rmSync(s.dataDir, { recursive: true, force: true });
  }
}
