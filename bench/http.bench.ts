// Authenticated reads over HTTP (issue 18, goal 1): the real server (`apps/server/src/main.ts`) in a
// child process on its PGlite store in a fresh DATA_DIR, as the browser tests start it
// (e2e/harness.ts); a user seeded through the public API with a paper Binance account, Grid Bot DCA
// bots running (some stopped, some lots sold, so the history calls answer rows); then autocannon, in
// this process, at 100 keep-alive connections on each call the dashboards poll, one call at a time.
// Baseline: `GET /api/health` on the same server in the same run (measured first and last; the mean).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { simulatedSymbols } from '@bytx/venues';
import { loginViaApi, registerViaApi } from '../e2e/helpers/accounts';
import { freePort } from '../e2e/harness';
import { apiCall } from '../e2e/helpers/api';
import type { BenchSection } from './run';

/** The part of autocannon's programmatic API used here (the package ships no types). */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: {
  url: string;
  method: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
  body?: string;
}) => Promise<AutocannonResult>;

const START_DEADLINE_MS = 300_000;
const ACTIVE_BOTS = 20;
/** Started and then stopped with a market close: the closed-bot list and the history have rows. */
const CLOSED_BOTS = 4;
/** Open lots of the active bots sold at market: more history rows, the pending list keeps the rest. */
const LOTS_SOLD = 6;
const CONNECTIONS = 100;
const WARMUP_S = 1;
/**
 * Quiet time after seeding, before any measurement: the bots just started place their first orders and
 * the lots just sold are followed up (seconds of writes); measured at once, the first call's p99 carried
 * that start-up (/api/me: 21 ms, its health run 390 ms, against 46–85 for the later ones).
 */
const SETTLE_S = 5;
const DURATION_S = 5;
const HEALTH_S = 2;
const PASSWORD = 'violet-harbor-73';
const EMAIL = 'bench-http@example.com';

const GOAL_RPS = 5000;
const GOAL_P99_MS = 20;
const GOAL_RATIO = 0.8;

interface Call {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

interface Measured {
  call: Call;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

const failures = (m: Measured) => m.non2xx + m.errors + m.timeouts;

async function measure(baseUrl: string, token: string, call: Call, seconds: number): Promise<Measured> {
  const result = await autocannon({
    url: `${baseUrl}${call.path}`,
    method: call.method,
    connections: CONNECTIONS,
    duration: seconds,
    headers: {
      authorization: `Bearer ${token}`,
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  });
  return {
    call,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/**
 * `main.ts` in a child process on a fresh DATA_DIR, started as e2e/harness.ts does, on a free port and
 * with a longer start deadline (a busy machine takes minutes to run the migrations).
 */
async function startServer(env: Record<string, string>) {
  // A port the kernel picks, not a fixed one: a fixed port in the ephemeral range (32768-60999 on Linux)
  // can still be held by a client socket in TIME_WAIT from the bench before (the flood's 200
  // connections), and the server then fails with EADDRINUSE.
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-bench-http-'));
  const root = path.resolve(import.meta.dirname, '..');
  let output = '';
  // BENCH_SERVER_NODE_ARGS go to the server's node, as in lib/live-server.ts (a profile: `--cpu-prof …`).
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const main = path.join(root, 'apps/server/src/main.ts');
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', main], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`server exited early:\n${output}`);
    }
    const up = await fetch(`${baseUrl}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`server did not start in ${START_DEADLINE_MS / 1000} s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { baseUrl, outboxDir: path.join(dataDir, 'outbox'), stop };
}

/** One answer of the call before it is measured: it must be a 2xx with the fields a dashboard reads. */
async function sample(baseUrl: string, token: string, call: Call): Promise<string> {
  const json: unknown = await apiCall(baseUrl, token, call.method, call.path, call.body);
  if (Array.isArray(json)) return `${json.length} rows`;
  const list = Object.entries(json as Record<string, unknown>).find(([, v]) => Array.isArray(v));
  return list ? `${(list[1] as unknown[]).length} ${list[0]}` : '';
}

export default async function httpBench(): Promise<BenchSection[]> {
  const server = await startServer({
    LOG_LEVEL: 'warn',
    // Load shedding off: the bench measures real answers (a 503 is not one), and counts any non-2xx.
    SHED_MAX_IN_FLIGHT: '0',
  });
  try {
    const base = server.baseUrl;
    await registerViaApi(base, server.outboxDir, EMAIL, PASSWORD);
    const token = await loginViaApi(base, EMAIL, PASSWORD);
    await apiCall(base, token, 'POST', '/api/conectar_exchange', { exchange: 'binance', mode: 'paper' });
    const pairs = simulatedSymbols()
      .filter((s) => s.endsWith('/USDT'))
      .slice(0, ACTIVE_BOTS + CLOSED_BOTS);
    if (pairs.length < ACTIVE_BOTS + CLOSED_BOTS) throw new Error(`only ${pairs.length} USDT pairs`);
    for (const symbol of pairs) {
      await apiCall(base, token, 'POST', '/api/start_bot_dca', {
        exchange: 'binance',
        symbol,
        amount: 20,
        tp: 1,
        separacion: 1,
        os: 3,
      });
    }
    for (const symbol of pairs.slice(ACTIVE_BOTS)) {
      await apiCall(base, token, 'POST', '/api/stop_bot_dca', {
        exchange: 'binance',
        symbol,
        mode: 'close_market',
      });
    }
    const open = await apiCall(base, token, 'GET', '/api/dca/pending_orders?per_page=200');
    const lots = ((open.orders ?? []) as { id: string }[]).slice(0, LOTS_SOLD);
    for (const lot of lots) {
      await apiCall(base, token, 'POST', '/api/dca/pending_orders/sell', { id: lot.id });
    }
    const active = pairs.slice(0, ACTIVE_BOTS);
    const q = `user_id=${encodeURIComponent(EMAIL)}`;
    // Exactly as the web app asks (apps/web/src/features/*/api): methods, queries and bodies.
    const calls: Call[] = [
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
    const health: Call = { name: '/api/health (baseline)', method: 'GET', path: '/api/health' };
    await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
    const samples = new Map<string, string>();
    for (const call of calls) samples.set(call.name, await sample(base, token, call));

    const log = (m: Measured) =>
      console.log(
        `${m.call.name}: ${Math.round(m.rps)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, failed ${failures(m)}`,
      );
    // Each call right after a health run of its own: the ratio compares two runs seconds apart, so a
    // machine whose load drifts during the bench (other processes) moves both alike.
    await measure(base, token, health, WARMUP_S);
    const rounds: { health: Measured; call: Measured }[] = [];
    for (const call of calls) {
      const h = await measure(base, token, health, HEALTH_S);
      await measure(base, token, call, WARMUP_S);
      const m = await measure(base, token, call, DURATION_S);
      log(h);
      log(m);
      rounds.push({ health: h, call: m });
    }

    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    const met = (r: (typeof rounds)[number]) =>
      r.call.rps >= GOAL_RPS &&
      r.call.p99 <= GOAL_P99_MS &&
      r.call.rps / r.health.rps >= GOAL_RATIO &&
      failures(r.call) === 0;
    const healthRps = rounds.map((r) => r.health.rps);
    const healthP99 = rounds.map((r) => r.health.p99);
    const notMet = rounds.filter((r) => !met(r)).map((r) => `\`${r.call.call.name}\``);
    const markdown = [
      `The real server (\`main.ts\`, child process, PGlite in a fresh DATA_DIR, bot runner on) with one user`,
      `seeded through the API: a paper Binance account, ${ACTIVE_BOTS} Grid Bot DCA bots running, ${CLOSED_BOTS}`,
      `stopped with a market close and ${LOTS_SOLD} open lots sold (so the closed-bot list, the history and`,
      `the pending list answer rows), then ${SETTLE_S} s for their writes to settle. autocannon in the bench process: ${CONNECTIONS} keep-alive connections`,
      `with the user's bearer token and the query or body the web app sends; per call, ${HEALTH_S} s of`,
      `\`GET /api/health\` (the baseline, same server, same run, just before), then ${WARMUP_S} s warm-up and`,
      `${DURATION_S} s of the call. Load shedding is off (\`SHED_MAX_IN_FLIGHT=0\`)`,
      `so every answer is a real one; "failed" counts non-2xx (a 503 included), socket errors and timeouts.`,
      `Goal per call: ≥ ${fmt(GOAL_RPS)} req/s, p99 ≤ ${GOAL_P99_MS} ms, ≥ ${GOAL_RATIO}× health, nothing failed.`,
      '',
      '| call | req/s | p50 ms | p99 ms | failed | health req/s (p99 ms) | × health | goal met | rows in one answer |',
      '|---|---:|---:|---:|---:|---:|---:|---|---|',
      ...rounds.map(
        (r) =>
          `| ${r.call.call.method} \`${r.call.call.name}\` | ${fmt(r.call.rps)} | ${r.call.p50} | ${r.call.p99} | ${failures(r.call)} | ${fmt(r.health.rps)} (${r.health.p99}) | ${(r.call.rps / r.health.rps).toFixed(2)}× | ${met(r) ? 'yes' : '**no**'} | ${samples.get(r.call.call.name) ?? ''} |`,
      ),
      '',
      `\`/api/health\` over the run: ${fmt(Math.min(...healthRps))}–${fmt(Math.max(...healthRps))} req/s, p99`,
      `${Math.min(...healthP99)}–${Math.max(...healthP99)} ms. Goal met by ${rounds.length - notMet.length} of ${rounds.length} calls${notMet.length === 0 ? '.' : `; not met: ${notMet.join(', ')}.`}`,
    ].join('\n');
    return [{ title: 'HTTP: authenticated reads at 100 connections', markdown }];
  } finally {
    await server.stop();
  }
}
