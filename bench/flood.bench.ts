// No starvation under a flood (issue 18, goal 2): 200 keep-alive connections ask for a user's bot list
// as fast as they can while a second client, in this process, measures what a person arriving at that
// moment gets: `GET /api/health` and `POST /api/login`, each on a new TCP connection (the connect is
// in the time). The flood runs in a child process (autocannon's CLI) so its own CPU is not in the probe's
// timing. Baseline: the same probes against the same server with no flood, in the same run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { BENCH_PASSWORD, startSeededServer } from './lib/live-server';
import type { BenchSection } from './run';

const BOTS = 20;
const CONNECTIONS = 200;
const FLOOD_S = 12;
/** Requests the flood gives up on (s): autocannon's own timeout, counted as "left to time out". */
const FLOOD_TIMEOUT_S = 10;
const PROBE_GAP_MS = 40;
const LOGIN_GAP_MS = 200;
/** Accounts to log in to: enough for the login probes (see LOGINS_PER_ACCOUNT). */
const LOGIN_ACCOUNTS = 10;
/** How long the flood may take to open its connections before the probes start anyway (ms). */
const OPEN_TIMEOUT_MS = 10_000;
/** The probe's own limit (ms): a probe answered later than this counts as timed out. */
const PROBE_TIMEOUT_MS = 10_000;

interface Probe {
  ms: number;
  status: number;
}

/** One request on a connection of its own; resolves with the time to the whole answer. */
function probe(url: string, method: 'GET' | 'POST', body?: unknown): Promise<Probe> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const t0 = performance.now();
    const req = http.request(
      url,
      {
        method,
        agent: false,
        timeout: PROBE_TIMEOUT_MS,
        headers: payload
          ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
          : {},
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

function pct(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

/** Logins per account the bench may spend: the route allows 10 per 5 minutes per address and email. */
const LOGINS_PER_ACCOUNT = 9;

/**
 * Probes until `until()` says stop: health every PROBE_GAP_MS, and a login every LOGIN_GAP_MS on the
 * next of `emails` (each used at most LOGINS_PER_ACCOUNT times), side by side, one request at a time each.
 */
async function probeLoop(baseUrl: string, emails: string[], until: () => boolean) {
  const health: Probe[] = [];
  const login: Probe[] = [];
  const healthLoop = async () => {
    while (!until()) {
      health.push(await probe(`${baseUrl}/api/health`, 'GET'));
      await sleep(PROBE_GAP_MS);
    }
  };
  const loginLoop = async () => {
    while (!until()) {
      const email = emails[loginCount++ % emails.length]!;
      if (loginCount > emails.length * LOGINS_PER_ACCOUNT) throw new Error('bench: out of login budget');
      login.push(await probe(`${baseUrl}/api/login`, 'POST', { email, password: BENCH_PASSWORD }));
      await sleep(LOGIN_GAP_MS);
    }
  };
  await Promise.all([healthLoop(), loginLoop()]);
  return { health, login };
}
let loginCount = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface FloodResult {
  requests: { total: number; average: number };
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}

function flood(url: string, token: string, seconds = FLOOD_S): Promise<FloodResult> {
  const bin = path.join(import.meta.dirname, '../node_modules/autocannon/autocannon.js');
  const args = [
    bin,
    '-c',
    String(CONNECTIONS),
    '-d',
    String(seconds),
    '-t',
    String(FLOOD_TIMEOUT_S),
    '-j',
    '-H',
    `authorization=Bearer ${token}`,
    url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      try {
        resolve(JSON.parse(out) as FloodResult);
      } catch {
        reject(new Error(`autocannon exited ${code}: ${out.slice(0, 500)}`));
      }
    });
  });
}

/**
 * The server side of `port` from the kernel's socket table (/proc/net/tcp and tcp6, Linux): connections
 * established to it, and connections the kernel has completed that the server has not yet accepted
 * (the listening socket's rx_queue). null where the table cannot be read.
 */
function serverSockets(port: number): { established: number; unaccepted: number } | null {
  let established = 0;
  let unaccepted = 0;
  let seen = false;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    seen = true;
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue …
      const [, local, , st, queues] = line.trim().split(/\s+/);
      if (!local || !st || !queues) continue;
      if (parseInt(local.slice(local.lastIndexOf(':') + 1), 16) !== port) continue;
      if (st === '01') established++;
      else if (st === '0A') unaccepted += parseInt(queues.split(':')[1] ?? '0', 16);
    }
  }
  return seen ? { established, unaccepted } : null;
}

/**
 * Waits until the flood's connections are open and accepted by the server (its listening socket's queue
 * empty), so the probes measure the flood and not its opening; see the section's text. Resolves with
 * the time that took (ms), or null where the socket table cannot be read (then after 1 s, as a guess).
 */
async function floodOpen(port: number, connections: number): Promise<number | null> {
  const t0 = performance.now();
  if (serverSockets(port) === null) {
    await sleep(1000);
    return null;
  }
  while (performance.now() - t0 < OPEN_TIMEOUT_MS) {
    const s = serverSockets(port);
    if (s && s.established >= connections && s.unaccepted === 0) break;
    await sleep(10);
  }
  return performance.now() - t0;
}

const row = (name: string, p: Probe[]) => {
  const ms = p.map((x) => x.ms);
  const failed = p.filter((x) => x.status !== 200).length;
  return { name, n: p.length, p50: pct(ms, 50), p99: pct(ms, 99), max: Math.max(...ms), failed };
};

export default async function floodBench(): Promise<BenchSection[]> {
  const seeded = await startSeededServer(BOTS, {}, LOGIN_ACCOUNTS);
  loginCount = 0;
  const { baseUrl } = seeded.server;
  try {
    // Baseline: the same probes, no flood (4 s).
    const quietEnd = Date.now() + 4000;
    const quiet = await probeLoop(baseUrl, seeded.others, () => Date.now() > quietEnd);
    // The flood, and the probes while it runs: from the moment its connections are open and accepted
    // until 1 s before it ends (it runs FLOOD_S from its own start).
    let flooding = true;
    const floodDone = flood(`${baseUrl}/api/bots_activos_dca`, seeded.token).finally(
      () => (flooding = false),
    );
    const openMs = await floodOpen(Number(new URL(baseUrl).port), CONNECTIONS);
    const busyEnd = Date.now() + (FLOOD_S - 2) * 1000;
    const busy = await probeLoop(baseUrl, seeded.others, () => !flooding || Date.now() > busyEnd);
    const f = await floodDone;
    // A shed answer must say when to come back.
    const shed = await probeWhileFlooding(baseUrl, seeded.token);

    const rows = [
      row('health, quiet (baseline)', quiet.health),
      row('login, quiet (baseline)', quiet.login),
      row('health, during the flood', busy.health),
      row('login, during the flood', busy.login),
    ];
    const fmt = (x: number) => x.toFixed(1);
    const codes = Object.entries(f.statusCodeStats ?? {})
      .map(([code, v]) => `${code}: ${v.count.toLocaleString('en-US')}`)
      .join(', ');
    const healthP99 = rows[2]!.p99;
    const loginP99 = rows[3]!.p99;
    const probesOk = healthP99 <= 50 && loginP99 <= 50 && rows.every((r) => r.failed === 0);
    const floodOk = f.timeouts === 0 && f.errors === 0;
    const markdown = [
      `${CONNECTIONS} keep-alive connections (autocannon in a child process) ask for \`GET /api/bots_activos_dca\``,
      `of a user with ${BOTS} running Grid Bot DCA bots for ${FLOOD_S} s, as fast as they are answered; the server`,
      'is the real `main.ts` (PGlite, paper market, bot runner) with its default load shedding. Meanwhile a',
      `second client in the bench process sends \`GET /api/health\` and \`POST /api/login\` (the right password)`,
      `side by side (health every ${PROBE_GAP_MS} ms, a login every ${LOGIN_GAP_MS} ms, each waiting for its answer), each on a new
TCP connection (connect included); logins rotate over ${LOGIN_ACCOUNTS} accounts (the route allows 10 per 5 minutes per address and email).`,
      'Baseline: the same probes for 4 s before the flood, in the same run.',
      `The probes during the flood start once its ${CONNECTIONS} connections are open and accepted (the server's`,
      `listening socket has none waiting, read from /proc/net/tcp): ${
        openMs === null
          ? 'not readable here, so 1 s after the flood was started'
          : `${Math.round(openMs)} ms after the flood was started`
      }. A newcomer arriving while ${CONNECTIONS} connections`,
      'open at once waits longer: Node accepts one connection per turn of its event loop (libuv ≥ 1.45), so it',
      'waits for the turns of the connections queued before it (docs/limits.md, "Overload").',
      '',
      '| probe | requests | p50 ms | p99 ms | max ms | not 200 |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      ...rows.map(
        (r) => `| ${r.name} | ${r.n} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.max)} | ${r.failed} |`,
      ),
      '',
      `The flood: ${f.requests.total.toLocaleString('en-US')} answers (${Math.round(f.requests.average).toLocaleString('en-US')} req/s),`,
      `latency p50 ${f.latency.p50} ms, p99 ${f.latency.p99} ms, max ${f.latency.max} ms; status codes ${codes || 'n/a'};`,
      `${f.timeouts} timed out (after ${FLOOD_TIMEOUT_S} s), ${f.errors} errors. A shed answer during a second`,
      `flood: ${shed}.`,
      '',
      `Ratio during / quiet: health p99 ×${(healthP99 / rows[0]!.p99).toFixed(1)}, login p99 ×${(loginP99 / rows[1]!.p99).toFixed(1)}.`,
      '',
      `Goal: health and login p99 ≤ 50 ms during the flood, and no flood request left to time out: ${
        probesOk && floodOk ? 'met' : 'NOT met'
      } (health p99 ${fmt(healthP99)} ms, login p99 ${fmt(loginP99)} ms, ${f.timeouts} timeouts).`,
    ].join('\n');
    return [{ title: 'No starvation: health and login during a 200-connection flood', markdown }];
  } finally {
    await seeded.stop();
  }
}

/** During a short flood, asks for the list on a connection of its own until one answer is a 503. */
async function probeWhileFlooding(baseUrl: string, token: string): Promise<string> {
  const url = `${baseUrl}/api/bots_activos_dca`;
  const done = flood(url, token, 4);
  await new Promise((r) => setTimeout(r, 500));
  const end = Date.now() + 3000;
  let seen = 'no 503 seen in 3 s (every request was answered)';
  while (Date.now() < end) {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } }).catch(() => null);
    if (res?.status === 503) {
      seen = `503 with Retry-After: ${res.headers.get('retry-after') ?? 'MISSING'}`;
      await res.body?.cancel();
      break;
    }
    await res?.body?.cancel();
  }
  await done;
  return seen;
}
