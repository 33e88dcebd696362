// Load shedding that keeps serving (issue 45 point 3): a ramp of offered load from 0.5x to 5x what the
// server carries on one read, reporting the goodput (2xx per second) as a fraction of that capacity,
// the share refused with 503, health and login p99 measured beside it, and how soon after the load
// stops a call is served again. The load runs in a child process (autocannon's CLI, open loop at a
// fixed overall rate); the probes run in this process, each on a new TCP connection.
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { BENCH_PASSWORD, startSeededServer } from './lib/live-server';
import type { BenchSection } from './run';

const BOTS = 20;
/** The read under load: the paper account's wallet (issue 45 measured it at 324–387 req/s). */
const CALL = process.env.BENCH_SHED_PATH ?? '/api/wallet?exchange=binance';
const RAMP = (process.env.BENCH_SHED_RAMP ?? '0.5,1,2,3,5').split(',').map(Number);
const STEP_S = 6;
const CAPACITY_S = 6;
/** Connections of the capacity run: under SHED_MAX_IN_FLIGHT (64), so nothing waits or is refused. */
const CAPACITY_CONNECTIONS = 32;
const PROBE_GAP_MS = 40;
const LOGIN_GAP_MS = 500;
const LOGIN_ACCOUNTS = 10;
/** Logins per account the bench may spend: the route allows 10 per 5 minutes per address and email. */
const LOGINS_PER_ACCOUNT = 9;
/** After the load stops: calls one after the other for this long, to see when they are served again. */
const RECOVERY_WATCH_MS = 2000;
const GEN_NICE = Number(process.env.BENCH_SHED_GEN_NICE ?? 10);

interface Probe {
  ms: number;
  status: number;
}

/** One request on a connection of its own; resolves with the time to the whole answer. */
function probe(url: string, method: 'GET' | 'POST', headers: Record<string, string> = {}, body?: unknown) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<Probe>((resolve) => {
    const t0 = performance.now();
    const req = http.request(
      url,
      {
        method,
        agent: false,
        timeout: 10_000,
        headers: payload
          ? { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
          : headers,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0 }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ ms: performance.now() - t0, status: 0 }));
    req.end(payload);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function pct(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

interface LoadResult {
  requests: { total: number; sent: number };
  duration: number;
  latency: { p50: number; p99: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}

/** autocannon in a child process: `connections` keep-alive connections, at `rate` req/s overall (0: as fast as answered). */
function load(url: string, token: string, connections: number, seconds: number, rate: number) {
  const bin = path.join(import.meta.dirname, '../node_modules/autocannon/autocannon.js');
  const args = [bin, '-c', String(connections), '-d', String(seconds), '-t', '10', '-j'];
  if (rate > 0) args.push('-R', String(Math.round(rate)));
  args.push('-H', `authorization=Bearer ${token}`, url);
  return new Promise<{ result: LoadResult; endedAt: number }>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    // The load generator shares the 2 cores with the server and the probes: below them in priority, so
    // the probes' times are the server's answer and not this machine's scheduler (GEN_NICE, default 10).
    if (child.pid !== undefined) os.setPriority(child.pid, GEN_NICE);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      const endedAt = performance.now();
      try {
        resolve({ result: JSON.parse(out) as LoadResult, endedAt });
      } catch {
        reject(new Error(`autocannon exited ${code}: ${out.slice(0, 500)}`));
      }
    });
  });
}

export default async function sheddingBench(): Promise<BenchSection[]> {
  // BENCH_SHED_ENV: the server's environment for a comparison run (e.g. SHED_MAX_PER_TURN=4).
  const env = Object.fromEntries(
    (process.env.BENCH_SHED_ENV ?? '')
      .split(',')
      .filter(Boolean)
      .map((kv) => kv.split('=') as [string, string]),
  );
  const seeded = await startSeededServer(BOTS, env, LOGIN_ACCOUNTS);
  const { baseUrl } = seeded.server;
  const url = `${baseUrl}${CALL}`;
  const auth = { authorization: `Bearer ${seeded.token}` };
  let logins = 0;
  const login = () => {
    const email = seeded.others[logins++ % seeded.others.length]!;
    if (logins > seeded.others.length * LOGINS_PER_ACCOUNT) throw new Error('bench: out of login budget');
    return probe(`${baseUrl}/api/login`, 'POST', {}, { email, password: BENCH_PASSWORD });
  };
  /** Health every PROBE_GAP_MS and a login every LOGIN_GAP_MS, side by side, until `until()`. */
  const probes = async (until: () => boolean) => {
    const health: Probe[] = [];
    const logs: Probe[] = [];
    await Promise.all([
      (async () => {
        while (!until()) {
          health.push(await probe(`${baseUrl}/api/health`, 'GET'));
          await sleep(PROBE_GAP_MS);
        }
      })(),
      (async () => {
        while (!until()) {
          logs.push(await login());
          await sleep(LOGIN_GAP_MS);
        }
      })(),
    ]);
    return { health, login: logs };
  };
  /** From the end of the load: the call one after the other; the last 503 seen, and the first answer. */
  const recovery = async (endedAt: number) => {
    const seen: { at: number; status: number }[] = [];
    while (performance.now() - endedAt < RECOVERY_WATCH_MS) {
      const p = await probe(url, 'GET', auth);
      seen.push({ at: performance.now() - endedAt, status: p.status });
    }
    const refused = seen.filter((s) => s.status !== 200);
    return {
      first: seen[0]?.status ?? 0,
      lastRefusedMs: refused.length === 0 ? 0 : refused[refused.length - 1]!.at,
      calls: seen.length,
      refused: refused.length,
    };
  };

  try {
    // Warm-up (JIT, caches), then the capacity: closed loop under the in-flight limit.
    await load(url, seeded.token, CAPACITY_CONNECTIONS, 2, 0);
    const cap = (await load(url, seeded.token, CAPACITY_CONNECTIONS, CAPACITY_S, 0)).result;
    const capacity = cap['2xx'] / CAPACITY_S;
    if (!(capacity > 0)) throw new Error(`bench: no 2xx in the capacity run of ${CALL}`);
    const quiet = await probes(
      (
        (end) => () =>
          Date.now() > end
      )(Date.now() + 3000),
    );

    const rows: string[] = [];
    const summary: {
      x: number;
      goodput: number;
      shed: number;
      health: number;
      login: number;
      rec: number;
    }[] = [];
    for (const x of RAMP) {
      const rate = x * capacity;
      // Enough connections for the offered rate at up to ~3 s per answer (an open loop), at least 100.
      const connections = Math.min(2000, Math.max(100, Math.ceil(3 * rate)));
      let loading = true;
      const run = load(url, seeded.token, connections, STEP_S, rate).finally(() => (loading = false));
      await sleep(500); // the connections open
      const beside = await probes(() => !loading);
      const { result: r, endedAt } = await run;
      const rec = await recovery(endedAt);
      const answered = r.requests.total;
      const refused = r.statusCodeStats?.['503']?.count ?? 0;
      const other = r.non2xx - refused;
      const goodput = r['2xx'] / STEP_S;
      const healthP99 = pct(
        beside.health.map((p) => p.ms),
        99,
      );
      const loginP99 = pct(
        beside.login.map((p) => p.ms),
        99,
      );
      const failedProbes = [...beside.health, ...beside.login].filter((p) => p.status !== 200).length;
      summary.push({
        x,
        goodput: goodput / capacity,
        shed: answered ? refused / answered : 0,
        health: healthP99,
        login: loginP99,
        rec: rec.lastRefusedMs,
      });
      rows.push(
        `| ${x}× | ${Math.round(rate).toLocaleString('en-US')} | ${Math.round(r.requests.sent / STEP_S).toLocaleString('en-US')} | ` +
          `${Math.round(goodput).toLocaleString('en-US')} | ${(goodput / capacity).toFixed(2)} | ` +
          `${answered ? ((100 * refused) / answered).toFixed(1) : '0.0'} % | ${other} / ${r.timeouts} | ${r.latency.p50} / ${r.latency.p99} | ` +
          `${healthP99.toFixed(1)} | ${loginP99.toFixed(1)} | ${failedProbes} | ${rec.first} | ` +
          `${rec.lastRefusedMs === 0 ? '0' : Math.round(rec.lastRefusedMs)} (${rec.refused} of ${rec.calls}) |`,
      );
      console.log(rows[rows.length - 1]);
    }

    const over = summary.filter((s) => s.x >= 2);
    const goodputOk = over.every((s) => s.goodput >= 0.8);
    const probesOk = summary.every((s) => s.health < 50 && s.login < 50);
    const recOk = summary.every((s) => s.rec <= 1000);
    const fmt = (v: number) => v.toFixed(1);
    const markdown = [
      `\`GET ${CALL}\` of a user with ${BOTS} running Grid Bot DCA bots, on the real \`main.ts\` (PGlite, paper`,
      `market, bot runner) with ${
        Object.keys(env).length === 0
          ? 'its default load shedding (SHED_MAX_IN_FLIGHT 64, SHED_MAX_QUEUE_MS 250, SHED_MAX_QUEUED 1024, SHED_MAX_PER_TURN 32)'
          : `the load shedding's defaults but ${Object.entries(env)
              .map(([k, v]) => `${k}=${v}`)
              .join(', ')}`
      }. Capacity: what`,
      `${CAPACITY_CONNECTIONS} keep-alive connections get in ${CAPACITY_S} s asking as fast as they are answered (fewer than`,
      `the in-flight limit, so nothing waits or is refused): **${Math.round(capacity).toLocaleString('en-US')} req/s** (p50 ${cap.latency.p50} ms, p99 ${cap.latency.p99} ms).`,
      `Then each step offers a multiple of it for ${STEP_S} s (autocannon in a child process, open loop at a fixed`,
      'overall rate over enough connections for ~3 s per answer), while this process sends `GET /api/health`',
      `every ${PROBE_GAP_MS} ms and \`POST /api/login\` every ${LOGIN_GAP_MS} ms, each on a new connection. When a step's load`,
      `stops, the same call is sent one after the other for ${RECOVERY_WATCH_MS / 1000} s: "recovery" is the time from the load's end to`,
      'the last refused call (0: the first call after the load was served).',
      `Machine: ${os.cpus().length} cores, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')} at the end (other work was running: read the ratios, not the absolute figures).`,
      '',
      '| offered | req/s offered | req/s sent | 2xx/s | goodput ÷ capacity | shed (503) | other non-2xx / timeouts | call p50 / p99 ms | health p99 ms | login p99 ms | probes not 200 | first call after | recovery ms (refused of calls) |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows,
      '',
      `Quiet baseline (no load, same run): health p99 ${fmt(
        pct(
          quiet.health.map((p) => p.ms),
          99,
        ),
      )} ms, login p99 ${fmt(
        pct(
          quiet.login.map((p) => p.ms),
          99,
        ),
      )} ms.`,
      '',
      `Goals (issue 45 point 3): goodput ≥ 0.8 of capacity at 2× and over: ${goodputOk ? 'met' : 'NOT met'}; health and login`,
      `p99 < 50 ms: ${probesOk ? 'met' : 'NOT met'}; back to 0 % shed within 1 s after the load stops: ${recOk ? 'met' : 'NOT met'}.`,
      '"req/s sent" below "offered": the load generator, on the same cores, could not send more.',
    ].join('\n');
    return [{ title: 'Load shedding: a ramp from 0.5× to 5× capacity', markdown }];
  } finally {
    await seeded.stop();
  }
}
