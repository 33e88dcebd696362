// Every read the web app makes, over HTTP (issue 18 goal 1, issue 45 point 1): the real server
// (`apps/server/src/main.ts`) in a child process on its PGlite store in a fresh DATA_DIR, as the browser
// tests start it (e2e/harness.ts); one user seeded through the public API with 20 bots of mixed kinds
// running on paper accounts and real rows behind each call (bench/lib/read-seed.ts); the calls taken
// from the OpenAPI document the server serves, every GET and every POST marked `x-read-only`
// (bench/lib/openapi-reads.ts); then autocannon, in this process, at 100 keep-alive connections on each
// call, one call at a time. Baseline: `GET /api/health` on the same server just before each call.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { loginViaApi, registerViaApi } from '../e2e/helpers/accounts';
import { freePort } from '../e2e/harness';
import { readCalls, WHY_NOT, type OpenApiDocument, type ReadCall } from './lib/openapi-reads';
import { RUNNING, seedReads } from './lib/read-seed';
import type { BenchSection } from './run';

/** The part of autocannon's programmatic API used here (the package ships no types). */
interface AutocannonResult {
  statusCodeStats?: Record<string, { count: number }>;
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
const CONNECTIONS = 100;
/** Seconds per call (bounded: ~55 calls × (health + warm-up + call) ≈ 5 min at the defaults). */
const WARMUP_S = 0.5;
const DURATION_S = Number(process.env.BENCH_HTTP_SECONDS ?? 3);
const HEALTH_S = 1;
/** Quiet time after seeding: the bots just started place their first orders (seconds of writes). */
const SETTLE_S = 5;
const PASSWORD = 'violet-harbor-73';
const EMAIL = 'bench-http@example.com';

const GOAL_RPS = 5000;
const GOAL_P99_MS = 20;
const GOAL_RATIO = 0.8;

type Call = ReadCall;

interface Measured {
  call: Call;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Status code -> count (autocannon's statusCodeStats). */
  codes: Record<string, { count: number }>;
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
    codes: result.statusCodeStats ?? {},
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
    // Ready, not only alive: /api/health answers while the app is still starting (503 to the rest).
    const up = await fetch(`${baseUrl}/api/ready`).then(
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

/** One answer of the call before it is measured: its status and how many rows its first list holds. */
async function sample(baseUrl: string, token: string, call: Call): Promise<string> {
  const res = await fetch(`${baseUrl}${call.path}`, {
    method: call.method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  });
  const text = await res.text();
  if (!res.ok) return `status ${res.status}`;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return `${text.length} B`;
  }
  if (Array.isArray(json)) return `${json.length} rows`;
  const list = Object.entries((json ?? {}) as Record<string, unknown>).find(([, v]) => Array.isArray(v));
  return list ? `${(list[1] as unknown[]).length} ${list[0]}` : `${text.length} B`;
}

export default async function httpBench(): Promise<BenchSection[]> {
  const server = await startServer({
    LOG_LEVEL: 'warn',
    // Load shedding off: the bench measures real answers (a 503 is not one), and counts any non-2xx.
    SHED_MAX_IN_FLIGHT: '0',
    SHED_MAX_PER_TURN: '0',
    // The futures screens (a derivatives position behind the derivatives wallet and funding calls).
    TRADING_SCREENS: 'all',
    // The token chain as the product runs it (embedded, anvil): NODE_ENV=test turns it off, and the
    // earnings and pool calls then answered 404 (chain off) instead of being measured.
    CHAIN: 'embedded',
  });
  try {
    const base = server.baseUrl;
    await registerViaApi(base, server.outboxDir, EMAIL, PASSWORD);
    const token = await loginViaApi(base, EMAIL, PASSWORD);
    const seed = await seedReads(base, token, EMAIL);
    const doc = (await (await fetch(`${base}/api/docs/json`)).json()) as OpenApiDocument;
    const only = process.env.BENCH_HTTP_ONLY?.split(',').filter(Boolean);
    const calls = readCalls(doc, seed, EMAIL).filter((c) => !only || only.some((o) => c.name.includes(o)));
    // The baseline is the app's own health route (a query string takes it past the early listener, which
    // answers the bare `/api/health` before Fastify: apps/server/src/early-server.ts): the cost of the
    // framework's router, hooks and serializer with nothing behind them, the floor of every call here.
    const health: Call = { name: 'GET /api/health (baseline)', method: 'GET', path: '/api/health?via=app' };
    await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
    // The chain starts in the background after /api/ready: its calls answer 503 until it is up.
    for (const until = Date.now() + 120_000; Date.now() < until;) {
      const r = await fetch(`${base}/api/pool_state`);
      await r.arrayBuffer();
      if (r.status !== 503) break;
      await new Promise((res) => setTimeout(res, 500));
    }
    const samples = new Map<string, string>();
    for (const call of calls) samples.set(call.name, await sample(base, token, call));

    const log = (m: Measured) =>
      console.log(
        `${m.call.name}: ${Math.round(m.rps)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, failed ${failures(m)}`,
      );
    const loadBefore = os.loadavg();
    // Each call right after a health run of its own: the ratio compares two runs a second apart, so a
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
    const loadAfter = os.loadavg();

    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    const met = (r: (typeof rounds)[number]) =>
      r.call.rps >= GOAL_RPS &&
      r.call.p99 <= GOAL_P99_MS &&
      r.call.rps / r.health.rps >= GOAL_RATIO &&
      failures(r.call) === 0;
    const ratioMet = (r: (typeof rounds)[number]) =>
      r.call.rps / r.health.rps >= GOAL_RATIO && failures(r.call) === 0;
    const failed = (m: Measured) => {
      const n = failures(m);
      if (n === 0) return '0';
      const codes = Object.entries(m.codes).filter(([c]) => !c.startsWith('2'));
      return `${fmt(n)} (${codes.map(([c, v]) => `${c}×${v.count}`).join(', ') || 'errors'})`;
    };
    const healthRps = rounds.map((r) => r.health.rps);
    const healthP99 = rounds.map((r) => r.health.p99);
    const notMet = rounds.filter((r) => !met(r));
    const la = (l: number[]) => l.map((x) => x.toFixed(1)).join(' / ');
    const kinds = Object.entries(RUNNING)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    const markdown = [
      `The real server (\`main.ts\`, child process, PGlite in a fresh DATA_DIR, bot runner on) with one user`,
      `seeded through the API (\`bench/lib/read-seed.ts\`): paper Binance and Bybit accounts, 20 bots running`,
      `(${kinds}), 2 Grid Bot DCA bots stopped with a market close, open lots sold, a signal's buy, a`,
      `derivatives position, a backtest, a forum post, a favourite pair${seed.notes.length > 0 ? ` (seed steps that failed: ${seed.notes.join('; ')})` : ''}.`,
      `The calls are every GET and every POST marked \`x-read-only\` in the server's OpenAPI document`,
      `(\`/api/docs/json\`, \`bench/lib/openapi-reads.ts\`): ${calls.length} calls, with the parameters the web app sends.`,
      `autocannon in the bench process: ${CONNECTIONS} keep-alive connections with the user's bearer token; per call,`,
      `${HEALTH_S} s of \`GET /api/health?via=app\` (the baseline: the app's health route through Fastify, same server, just before; the bare \`/api/health\` is answered before the app), ${WARMUP_S} s warm-up, ${DURATION_S} s`,
      `of the call. Load shedding off (\`SHED_MAX_IN_FLIGHT=0\`, \`SHED_MAX_PER_TURN=0\`): every answer is a real one;`,
      `"failed" counts non-2xx, socket errors and timeouts. Load average (1/5/15 min) ${la(loadBefore)} before the`,
      `calls, ${la(loadAfter)} after: the machine's 2 cores are shared, so the ratio to health is the figure that counts.`,
      `Goal per call: ≥ ${fmt(GOAL_RPS)} req/s, p99 ≤ ${GOAL_P99_MS} ms, ≥ ${GOAL_RATIO}× health, nothing failed.`,
      '',
      '| call | req/s | p50 ms | p99 ms | failed | health req/s (p99 ms) | × health | goal met | one answer | why not |',
      '|---|---:|---:|---:|---:|---:|---:|---|---|---|',
      ...rounds.map(
        (r) =>
          `| ${r.call.call.name} | ${fmt(r.call.rps)} | ${r.call.p50} | ${r.call.p99} | ${failed(r.call)} | ${fmt(r.health.rps)} (${r.health.p99}) | ${(r.call.rps / r.health.rps).toFixed(2)}× | ${met(r) ? 'yes' : ratioMet(r) ? 'ratio only' : '**no**'} | ${samples.get(r.call.call.name) ?? ''} | ${met(r) ? '' : (WHY_NOT[r.call.call.name] ?? 'not profiled yet')} |`,
      ),
      '',
      `\`/api/health\` over the run: ${fmt(Math.min(...healthRps))}–${fmt(Math.max(...healthRps))} req/s, p99`,
      `${Math.min(...healthP99)}–${Math.max(...healthP99)} ms. Goal met by ${rounds.length - notMet.length} of ${rounds.length} calls;`,
      `the ratio to health (≥ ${GOAL_RATIO}×, nothing failed) by ${rounds.filter(ratioMet).length}.`,
    ].join('\n');
    return [{ title: 'HTTP: authenticated reads at 100 connections', markdown }];
  } finally {
    await server.stop();
  }
}
