// Backtest throughput (packages/engine/src/backtest, docs/bots/backtest-engine.md): one year of 1-minute
// candles (525,600) from a seeded random walk, run through runBacktest with the real strategies: the
// Grid Bot DCA with 3 OS (the goal: ≥ 10,000,000 candles a second on one core), the classic DCA and the
// Grid bot. The baseline is a minimal loop over the same candle arrays in the same process (the sum of
// the closes and the lowest low / highest high), so the ratio says what a candle costs beyond reading it.
// Two years: a sideways one and a falling one (a DCA that runs out of funds steps far more often).
import {
  classicDca,
  gridBot,
  gridBotDca,
  runBacktest,
  type BacktestColumns,
  type BacktestInput,
  type MarketRules,
} from '@bytx/engine';
import os from 'node:os';
import type { BenchSection } from './run';

const CANDLES = 525_600;
const MIN = 60_000;
/** σ of a minute's log return: 0.07 % ≈ 50 % a year, about BTC's. */
const SIGMA = 0.0007;
/** Measured runs per case (best kept), each case bounded in time. */
const RUNS = 5;
const CASE_BUDGET_MS = 30_000;

const market: MarketRules = {
  amountStep: 0.00001,
  priceStep: 0.01,
  minAmount: 0.00001,
  minCost: 5,
  takerFee: 0.001,
  makerFee: 0.001,
};

/** Seeded standard normal draws (Box-Muller over mulberry32), as bots.bench.ts. */
function normals(seed: number) {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** A year of 1-minute candles from 60,000: close = open × e^(σz), wicks of |σz| / 2, cent prices. */
function year(
  seed: number,
): BacktestColumns & { ts: Float64Array; close: Float64Array; low: Float64Array; high: Float64Array } {
  const z = normals(seed);
  const ts = new Float64Array(CANDLES);
  const open = new Float64Array(CANDLES);
  const high = new Float64Array(CANDLES);
  const low = new Float64Array(CANDLES);
  const close = new Float64Array(CANDLES);
  const cents = (x: number) => Math.round(x * 100) / 100;
  let p = 60_000;
  const t0 = Date.UTC(2025, 0, 1);
  for (let i = 0; i < CANDLES; i++) {
    const o = p;
    const c = cents(o * Math.exp(SIGMA * z()));
    ts[i] = t0 + i * MIN;
    open[i] = o;
    high[i] = cents(Math.max(o, c) * (1 + Math.abs(z()) * SIGMA * 0.5));
    low[i] = cents(Math.min(o, c) * (1 - Math.abs(z()) * SIGMA * 0.5));
    close[i] = c;
    p = c;
  }
  return { ts, open, high, low, close };
}

/** The baseline: one pass over the candle arrays doing almost nothing with them. */
function minimalLoop(c: ReturnType<typeof year>): number {
  let sum = 0;
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  const n = c.ts.length;
  for (let i = 0; i < n; i++) {
    sum += c.close[i]!;
    if (c.low[i]! < lo) lo = c.low[i]!;
    if (c.high[i]! > hi) hi = c.high[i]!;
  }
  return sum + lo + hi;
}

type Case = { kind: string; input: (candles: BacktestColumns) => BacktestInput<unknown, unknown> };

const cases: Case[] = [
  {
    kind: 'Grid Bot DCA, 3 OS',
    input: (candles) => ({
      strategy: gridBotDca,
      config: {
        symbol: 'BTC/USDT',
        amount: 100,
        tpPct: 1,
        sepPct: 1,
        os: 3,
        direction: 'LONG',
        market,
        raEnabled: false,
      },
      candles,
      market,
      initialQuote: 10_000,
    }),
  },
  {
    kind: 'classic DCA, 3 OS',
    input: (candles) => ({
      strategy: classicDca,
      config: {
        symbol: 'BTC/USDT',
        amount: 100,
        tpPct: 1,
        sepPct: 2,
        os: 3,
        market,
        sl: null,
        tpPlus: null,
        r: true,
        rOs: false,
        trendFilter: true,
        smartAveraging: true,
        smartAmount: 10,
        maPeriod: 70,
        candleMs: MIN,
        tpVncPct: 0.5,
      },
      candles,
      market,
      initialQuote: 10_000,
    }),
  },
  {
    kind: 'Grid bot, 1 % levels',
    input: (candles) => ({
      strategy: gridBot,
      config: {
        symbol: 'BTC/USDT',
        low: 42_000,
        high: 78_000,
        stepPct: 1,
        amountPerLevel: 100,
        position: 'long',
        profitCurrency: 'quote',
        derivatives: false,
        market,
      },
      candles,
      market,
      initialQuote: 10_000,
    }),
  },
];

interface Row {
  year: string;
  kind: string;
  /** Best wall and CPU ms of a run, and of one minimal loop. */
  ms: number;
  cpuMs: number;
  baseMs: number;
  baseCpuMs: number;
  runs: number;
  steps: number;
  quiet: number;
  trades: number;
  net: number;
}

/** User + system CPU time of the process so far (ms). */
function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function measure(yearName: string, candles: ReturnType<typeof year>, c: Case): Row {
  const input = c.input(candles);
  let ms = Number.POSITIVE_INFINITY;
  let cpuMs = Number.POSITIVE_INFINITY;
  let baseMs = Number.POSITIVE_INFINITY;
  let baseCpuMs = Number.POSITIVE_INFINITY;
  let sink = 0;
  let runs = 0;
  const start = performance.now();
  // A warm-up run (JIT); when it is already long it is the measured run (another would not fit).
  let t = performance.now();
  let cpu = cpuNow();
  let last = runBacktest(input);
  if (performance.now() - t > 5_000) {
    ms = performance.now() - t;
    cpuMs = cpuNow() - cpu;
    runs = 1;
  }
  while (runs < RUNS && performance.now() - start < CASE_BUDGET_MS) {
    // Alternate the baseline and the backtest and keep the best of each (the machine is shared).
    t = performance.now();
    cpu = cpuNow();
    for (let k = 0; k < 10; k++) sink += minimalLoop(candles);
    baseMs = Math.min(baseMs, (performance.now() - t) / 10);
    baseCpuMs = Math.min(baseCpuMs, (cpuNow() - cpu) / 10);
    t = performance.now();
    cpu = cpuNow();
    last = runBacktest(input);
    ms = Math.min(ms, performance.now() - t);
    cpuMs = Math.min(cpuMs, cpuNow() - cpu);
    runs++;
  }
  if (!Number.isFinite(baseMs)) {
    t = performance.now();
    cpu = cpuNow();
    for (let k = 0; k < 10; k++) sink += minimalLoop(candles);
    baseMs = (performance.now() - t) / 10;
    baseCpuMs = (cpuNow() - cpu) / 10;
  }
  if (sink === 0) throw new Error('unreachable');
  return {
    year: yearName,
    kind: c.kind,
    ms,
    cpuMs,
    baseMs,
    baseCpuMs,
    runs,
    steps: last.stats.steps,
    quiet: last.stats.quietCandles,
    trades: last.summary.closedTrades,
    net: last.summary.netPnl,
  };
}

const fmt = (x: number, d = 0) =>
  x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

export default async function backtestBench(): Promise<BenchSection[]> {
  const years = [
    { name: 'sideways', seed: 17 },
    { name: 'falling', seed: 1 },
  ];
  const rows: Row[] = [];
  const described: string[] = [];
  for (const y of years) {
    const candles = year(y.seed);
    let lo = Number.POSITIVE_INFINITY;
    let hi = 0;
    for (let i = 0; i < CANDLES; i++) {
      lo = Math.min(lo, candles.low[i]!);
      hi = Math.max(hi, candles.high[i]!);
    }
    described.push(
      `${y.name} (seed ${y.seed}): 60,000 → ${fmt(candles.close[CANDLES - 1]!)}, low ${fmt(lo)}, high ${fmt(hi)}`,
    );
    for (const c of cases) rows.push(measure(y.name, candles, c));
  }
  const perSecond = (ms: number) => (CANDLES / ms) * 1000;
  const table = [
    '| year | bot | candles/s (wall) | candles/s (CPU) | wall ms | CPU ms | minimal loop wall / CPU ms | ratio wall / CPU | steps | quiet candles | trades | net PnL | runs |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.year} | ${r.kind} | ${fmt(perSecond(r.ms))} | ${fmt(perSecond(r.cpuMs))} | ${fmt(r.ms, 1)} | ${fmt(r.cpuMs, 1)} | ${fmt(r.baseMs, 2)} / ${fmt(r.baseCpuMs, 2)} | ×${fmt(r.ms / r.baseMs, 0)} / ×${fmt(r.cpuMs / r.baseCpuMs, 0)} | ${fmt(r.steps)} | ${fmt((r.quiet / CANDLES) * 100, 1)} % | ${fmt(r.trades)} | ${fmt(r.net, 2)} | ${r.runs} |`,
    ),
  ];
  const goal = rows[0]!;
  const met = perSecond(goal.ms) >= 10_000_000;
  const load = os.loadavg()[0]!;
  const markdown = [
    `One year of 1-minute candles (${fmt(CANDLES)}) per run, a seeded random walk (σ ${(SIGMA * 100).toFixed(2)} % a minute ≈ 50 % a year; wicks |σz| / 2, cent prices) as Float64Array columns; market: 0.1 % fees, 5 USDT minimum, 10,000 USDT.`,
    `Years: ${described.join('; ')}.`,
    'Bots: Grid Bot DCA 100 USDT per buy, TP 1 %, separation 1 %, 3 OS; classic DCA 100 USDT, TP 1 %, separation 2 %, 3 OS, restart, trend filter (70-candle MA) and smart averaging on; Grid bot 42,000–78,000, 1 % levels, 100 USDT per level, long.',
    `Each case: a warm-up run (measured instead when it takes over 5 s), then up to ${RUNS} runs within ${CASE_BUDGET_MS / 1000} s, the best kept, in CPU time of the process (user + system: the machine is shared, load average ${load.toFixed(1)} on ${os.cpus().length} cores at the start, so wall times carry other processes' work) and in wall time. The minimal loop (sum of closes, lowest low, highest high over the same arrays) is timed between the runs, best of 10. Ratio = backtest ms / minimal loop ms, in wall and in CPU time. "steps" are \`step()\` calls (ticks and order events); "quiet candles" were taken whole on the fast path.`,
    '',
    ...table,
    '',
    `Goal: ≥ 10,000,000 candles/s on one core for the Grid Bot DCA with 3 OS (sideways year), a run being single-threaded: ${met ? 'met' : 'NOT met'} on this machine (${fmt(perSecond(goal.ms))} candles/s in wall time, ${fmt(perSecond(goal.cpuMs))} in process CPU time, which also counts the GC and compiler threads; ×${fmt(goal.ms / goal.baseMs, 0)} the minimal loop in wall time, ×${fmt(goal.cpuMs / goal.baseCpuMs, 0)} in CPU time).`,
  ].join('\n');
  return [{ title: 'Backtest throughput', markdown }, await uploadSection()];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/**
 * Issue 37 point 3: a 600,000-candle upload (~26 MB of JSON, prices with cents and a volume) to
 * `POST /api/backtest` through the app (`inject`, embedded database, simulated market), read in a worker
 * of the pool. While it is read: `/api/health` back to back (its latency; the baseline is the same call
 * with nothing else going on) and the same user's second upload (its 409, refused before its body is
 * read). Then another user's 4-candle backtest, POST to done, while the big one runs (then cancelled).
 */
export async function uploadSection(): Promise<BenchSection> {
  const { backtestServices } = await import('../apps/server/src/modules/backtest/routes');
  const { createTestUser, makeTestApp } = await import('../apps/server/test/helpers');
  const MIN = 60_000;
  const N = 600_000;
  const form = {
    symbol: 'BTC/USDT',
    amount: '20',
    tp: '1',
    separacion: '1',
    os: '3',
    exchange: 'binance',
    apartado: 'Spot',
  };
  // The body as bytes only (a server holds no copy of it on its heap, so neither does the bench).
  const big = (() => {
    const rows: string[] = new Array<string>(N);
    for (let i = 0; i < N; i++) {
      const up = i % 2 === 0;
      rows[i] = `[${i * MIN},${up ? '97.25' : '103.25'},103.5,96.75,${up ? '103.25' : '97.25'},1.2345]`;
    }
    return Buffer.from(`{"kind":"grid-dca","params":${JSON.stringify(form)},"candles":[${rows.join(',')}]}`);
  })();
  const small = Buffer.from(
    JSON.stringify({
      kind: 'grid-dca',
      params: form,
      candles: [
        [0, 100, 100, 100, 100],
        [MIN, 100, 100, 98.9, 99],
        [2 * MIN, 99, 101.2, 99, 101],
      ],
    }),
  );
  const t = await makeTestApp({ SIMULATOR_CONTROL: '1' });
  try {
    const alice = await createTestUser(t);
    const bob = await createTestUser(t);
    const svc = backtestServices.get(t.ctx)!;
    await t.app.inject({
      method: 'POST',
      url: '/api/dev/market/price',
      payload: { exchange: 'binance', symbol: 'BTC/USDT', price: 100 },
    });
    const post = (u: typeof alice, payload: Buffer) =>
      t.app.inject({
        method: 'POST',
        url: '/api/backtest',
        headers: { ...u.auth, 'content-type': 'application/json' },
        payload,
      });
    const health = async () => {
      // One event-loop turn first, as a socket's next request would take: `/api/health` is answered from
      // memory, so back-to-back injects never leave the microtask queue, the worker's answer (a
      // macrotask) is never read, and the loop ran until the heap was full (4 GB: every inject's
      // response held by an Immediate that never ran).
      await new Promise((r) => setImmediate(r));
      const t0 = performance.now();
      await t.app.inject({ method: 'GET', url: '/api/health' });
      return performance.now() - t0;
    };
    await post(alice, Buffer.from('{}')); // a warm worker, as on a server in use
    const idle: number[] = [];
    for (let i = 0; i < 20; i++) idle.push(await health());
    const t0 = performance.now();
    let uploadMs = NaN;
    const first = post(alice, big).then((r) => {
      uploadMs = performance.now() - t0;
      return r;
    });
    while (svc.pool.running('parse') === 0) await new Promise((r) => setImmediate(r));
    const s0 = performance.now();
    const second = await post(alice, big);
    const secondMs = performance.now() - s0;
    const during: number[] = [];
    while (Number.isNaN(uploadMs)) during.push(await health());
    const id = (await first).json<{ id: string }>().id;
    const b0 = performance.now();
    const b = (await post(bob, small)).json<{ id: string }>().id;
    for (;;) {
      const r = await t.app.inject({ method: 'GET', url: `/api/backtest/${b}`, headers: bob.auth });
      if (r.json<{ status: string }>().status === 'done') break;
      await new Promise((r2) => setTimeout(r2, 10));
    }
    const bobMs = performance.now() - b0;
    const bigStatus = (
      await t.app.inject({ method: 'GET', url: `/api/backtest/${id}`, headers: alice.auth })
    ).json<{ status: string }>().status;
    await t.app.inject({ method: 'DELETE', url: `/api/backtest/${id}`, headers: alice.auth });
    while (svc.runningCount > 0) await new Promise((r) => setTimeout(r, 20));
    const markdown = [
      `A ${(big.length / 2 ** 20).toFixed(1)} MB body of ${fmt(N)} candles posted through the app (\`inject\`, PGlite, simulated market); load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores.`,
      '',
      '| what | figure |',
      '| --- | ---: |',
      `| \`/api/health\`, nothing else going on (median of 20) | ${fmt(median(idle), 1)} ms |`,
      `| \`/api/health\` while the upload is read in the worker (median / max of ${during.length}) | ${fmt(median(during), 1)} / ${fmt(Math.max(...during), 1)} ms |`,
      `| the same user's second upload: its ${second.statusCode} (before its body is read) | ${fmt(secondMs, 1)} ms |`,
      `| the upload to its 202 (read and checked in the worker, the form checked, stored) | ${fmt(uploadMs, 0)} ms |`,
      `| another user's 3-candle backtest, POST to done, while the big one is ${bigStatus} | ${fmt(bobMs, 0)} ms |`,
      '',
      "Before (issue 37): the body was parsed and checked on the event loop before the one-backtest check, so `/api/health` and the second upload's 409 each waited over a second, and the other user's backtest waited for the big one to end (one worker on 2 cores).",
    ].join('\n');
    return { title: 'Backtest upload of 600,000 candles', markdown };
  } finally {
    await t.close();
  }
}
