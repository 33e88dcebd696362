// Grid Bot DCA at scale: 1,000 and 10,000 bots on paper accounts in one process, the real runner
// (per-bot queues, journal, reconcile) and the real strategy and PaperVenue, with an in-memory store
// in place of the database (the figure is the runner's own cost, not the database's). Prices of
// the 25 USDT pairs move once a second each, in two scenarios: 'stress' (±0.4% steps every second,
// so ladder levels 0.5% apart and take profits are crossed all the time) and 'market' (a seeded random
// walk with σ = 0.03% a second, about twice BTC's usual per-second volatility). The latency is from a
// pair's tick reaching the runner to this bot's strategy step being decided (the bots before it in the
// fan-out and any queue wait included), after an unmeasured warm-up round.
import { createDcaBot, type DcaState } from '@bytx/engine';
import {
  MarketSimulator,
  MemoryPaperStore,
  PaperVenue,
  SimulatedMarketData,
  simulatedSymbols,
  type Ticker,
  type Venue,
} from '@bytx/venues';
import { PerformanceObserver } from 'node:perf_hooks';
import pino from 'pino';
import type { MarketHub, VenueRegistry } from '../apps/server/src/context';
import type {
  BotOrderRow,
  BotRow,
  BotWrite,
  NewBotEventRow,
  NewBotOrderRow,
} from '../apps/server/src/modules/bots/bots.repository';
import { dcaMarketRules } from '../apps/server/src/modules/bots/market-rules';
import { BotRunner, strategyIdOf, type RunnerStore } from '../apps/server/src/modules/bots/runner';
import type { BenchSection } from './run';

const EX = 'binance';
/** Rounds of ticks before the measured ones (see `round`). */
const WARMUP_ROUNDS = 1;
/** Every USDT pair of the simulated market (25): bots are spread over them. */
const SYMBOLS = simulatedSymbols().filter((x) => x.endsWith('/USDT'));

/** The runner's store in memory: same contract as BotsRepository. */
class MemoryStore implements RunnerStore {
  bots = new Map<string, BotRow>();
  orders = new Map<string, BotOrderRow>();
  byBot = new Map<string, Set<string>>();
  events = 0;
  trades = 0;
  async byId(id: string) {
    return this.bots.get(id) ?? null;
  }
  async write(w: BotWrite) {
    const b = this.bots.get(w.botId);
    if (b) {
      if (w.state !== undefined) b.state = w.state;
      if (w.status !== undefined) b.status = w.status;
      if (w.pnl !== undefined) b.pnl = w.pnl;
    }
    for (const o of w.newOrders ?? []) {
      this.orders.set(o.clientOrderId, {
        venueOrderId: null,
        price: null,
        status: 'pending_submit',
        cancelRequested: false,
        filled: '0',
        avgPrice: null,
        fee: '0',
        createdAt: new Date(),
        updatedAt: new Date(),
        ...o,
        exchange: o.exchange ?? null,
      });
      let set = this.byBot.get(o.botId);
      if (!set) this.byBot.set(o.botId, (set = new Set()));
      set.add(o.clientOrderId);
    }
    for (const u of w.orderUpdates ?? []) await this.updateOrder(u.clientOrderId, u.patch);
    this.trades += w.trades?.length ?? 0;
    this.events += w.events?.length ?? 0;
  }
  async updateOrder(id: string, patch: Partial<NewBotOrderRow>) {
    const o = this.orders.get(id);
    if (o) Object.assign(o, patch);
  }
  async liveOrders(botId: string) {
    return [...(this.byBot.get(botId) ?? [])]
      .map((id) => this.orders.get(id)!)
      .filter((o) => o.status === 'open' || o.status === 'pending_submit');
  }
  async knownClientIds(botId: string) {
    return new Set(this.byBot.get(botId) ?? []);
  }
  async event(_e: NewBotEventRow) {
    this.events++;
  }
  async lease() {
    return [...this.bots.values()].filter((b) => b.status === 'active').map((b) => b.id);
  }
  async releaseLeases() {}
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

type Scenario = 'stress' | 'market';

/** Seeded standard normal draws (Box-Muller over mulberry32), so runs are repeatable. */
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

async function run(nBots: number, ticks: number, scenario: Scenario = 'stress') {
  const normal = normals(42);
  const sim = new MarketSimulator({ seed: 7, startTime: Date.UTC(2025, 0, 15) });
  const feed = new SimulatedMarketData(sim, EX);
  const paperStore = new MemoryPaperStore();
  const start: Record<string, number> = {};
  for (const s of SYMBOLS) start[s] = sim.setPrice(EX, s, sim.price(EX, s));
  const toTicker = (symbol: string, price: number, ts: number): Ticker => ({
    symbol,
    last: price,
    bid: null,
    ask: null,
    percentage: null,
    timestamp: ts,
  });
  const hub = {
    subscribe: (_ex: string, symbol: string, l: (t: Ticker) => void) =>
      feed.subscribe(symbol, (price, ts) => l(toTicker(symbol, price, ts))),
    ticker: async (_ex: string, symbol: string) => sim.ticker(EX, symbol),
    market: async (_ex: string, symbol: string) => sim.market(EX, symbol),
  } as unknown as MarketHub;
  const venues = new Map<string, Venue>();
  const registry: VenueRegistry = {
    forUser: async (userId) => venues.get(userId)!,
    connectionKind: async () => 'paper',
  };
  const store = new MemoryStore();
  const lat: number[] = [];
  /** Order updates pushed by the venue (fills on a price move) → the strategy's decision on them. */
  const orderLat: number[] = [];
  let commands = 0;
  const runner = new BotRunner({
    store,
    market: () => hub,
    venues: () => registry,
    log: pino({ level: 'silent' }),
    runnerId: 'bench',
    takeAllLeases: true,
    autoRun: true,
    heartbeatMs: 3_600_000,
    onStep: (_id, ms, n, source) => {
      if (source === 'tick') lat.push(ms);
      else if (source === 'order') orderLat.push(ms);
      commands += n;
    },
  });
  const setupStart = performance.now();
  for (let i = 0; i < nBots; i++) {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const userId = `user-${i}`;
    const symbol = SYMBOLS[i % SYMBOLS.length]!;
    venues.set(
      userId,
      new PaperVenue({ accountId: userId, feed, store: paperStore, initialBalances: { USDT: 10_000 } }),
    );
    const m = sim.market(EX, symbol);
    const state: DcaState = createDcaBot(strategyIdOf(id), {
      symbol,
      amount: 20,
      tpPct: 0.5,
      sepPct: 0.5,
      os: 3,
      direction: 'LONG',
      raEnabled: false,
      market: dcaMarketRules(m),
    });
    store.bots.set(id, {
      id,
      userId,
      kind: 'dca',
      exchange: EX,
      symbol,
      marketType: 'Spot',
      leverage: 1,
      config: {},
      state,
      status: 'active',
      stopReason: null,
      problem: null,
      problemDetail: null,
      sl: null,
      tpPlus: null,
      raEnabled: false,
      pnl: '0',
      startedAt: new Date(),
      stoppedAt: null,
      leasedBy: null,
      leaseUntil: null,
      updatedAt: new Date(),
    });
  }
  await runner.start();
  await runner.idle();
  const setupMs = performance.now() - setupStart;
  let price = { ...start };
  // Each pair ticks once a second; the pairs' ticks are spread over the second as feeds arrive.
  const slot = 1000 / SYMBOLS.length;
  const round = async (k: number) => {
    const roundStart = performance.now();
    for (let i = 0; i < SYMBOLS.length; i++) {
      const s = SYMBOLS[i]!;
      const wait = roundStart + i * slot - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      // stress: ±0.4% steps, ladder levels (0.5% apart) and take profits crossed all the time;
      // market: σ 0.03% a second.
      const step = scenario === 'stress' ? Math.sin(k * 1.7 + i) * 0.004 : normal() * 0.0003;
      price = { ...price, [s]: price[s]! * (1 + step) };
      sim.setPrice(EX, s, price[s]!);
    }
    await runner.idle();
    const spent = performance.now() - roundStart;
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - spent)));
  };
  // Warm-up rounds, not measured: the first ticks after start-up run the tick path's code for the
  // first time (JIT compilation), which a running server has long done.
  for (let k = 0; k < WARMUP_ROUNDS; k++) await round(-1 - k);
  lat.length = 0;
  orderLat.length = 0;
  commands = 0;
  if (global.gc) global.gc();
  // GC pauses during the ticking phase: the tail of the latency is compared against them.
  const gcPauses: number[] = [];
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcPauses.push(e.duration);
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  let rssPeak = process.memoryUsage().rss;
  for (let k = 0; k < ticks; k++) {
    await round(k);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }
  const wall = performance.now() - wall0;
  const cpu = process.cpuUsage(cpu0);
  await new Promise((r) => setImmediate(r));
  gcObserver.disconnect();
  await runner.close();
  for (const v of venues.values()) await v.close();
  lat.sort((a, b) => a - b);
  orderLat.sort((a, b) => a - b);
  return {
    scenario,
    nBots,
    ticks,
    setupS: setupMs / 1000,
    steps: lat.length,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    max: lat[lat.length - 1] ?? 0,
    orderSteps: orderLat.length,
    orderP50: pct(orderLat, 50),
    orderP99: pct(orderLat, 99),
    commands,
    cpuPct: ((cpu.user + cpu.system) / 1000 / wall) * 100,
    rssMb: rssPeak / 2 ** 20,
    gcCount: gcPauses.length,
    gcTotalMs: gcPauses.reduce((a, b) => a + b, 0),
    gcMaxMs: Math.max(0, ...gcPauses),
    trades: store.trades,
  };
}

export default async function botsBench(): Promise<BenchSection[]> {
  const ticks = Number(process.env.TICKS ?? 10);
  const small = Number(process.env.SMALL ?? 1_000);
  const large = Number(process.env.LARGE ?? 10_000);
  const results: Awaited<ReturnType<typeof run>>[] = [];
  const scenarios = (process.env.SCENARIOS ?? 'stress,market').split(',') as Scenario[];
  for (const scenario of scenarios) {
    results.push(await run(small, ticks, scenario), await run(large, ticks, scenario));
  }
  const row = (r: (typeof results)[number]) =>
    `| ${r.scenario} | ${r.nBots.toLocaleString('en')} | ${r.ticks} | ${r.steps.toLocaleString('en')} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.max.toFixed(1)} | ${r.orderSteps.toLocaleString('en')} | ${r.orderP50.toFixed(2)} | ${r.orderP99.toFixed(2)} | ${r.commands.toLocaleString('en')} | ${r.cpuPct.toFixed(0)}% | ${r.rssMb.toFixed(0)} | ${r.gcCount} / ${r.gcTotalMs.toFixed(0)} / ${r.gcMaxMs.toFixed(1)} | ${r.setupS.toFixed(1)} |`;
  const verdict = (scenario: Scenario) => {
    const s = results.find((r) => r.scenario === scenario && r.nBots === small)!;
    const l = results.find((r) => r.scenario === scenario && r.nBots === large)!;
    const met = l.p99 < 5 && l.rssMb < 1024;
    return (
      `- ${scenario}: goal ${met ? 'met' : 'NOT met'} (p99 ${l.p99.toFixed(2)} ms, ${l.rssMb.toFixed(0)} MB); ` +
      `ratio ${large.toLocaleString('en')} / ${small.toLocaleString('en')}: p99 ×${(l.p99 / Math.max(s.p99, 1e-9)).toFixed(1)}, RSS ×${(l.rssMb / s.rssMb).toFixed(1)}.`
    );
  };
  const markdown = [
    'Real BotRunner + Grid Bot DCA strategy + PaperVenue per bot (one account each), in-memory store,',
    "25 USDT pairs (~400 bots each at 10,000), each moved once a second (the pairs' ticks spread over the second).",
    "Latency: the pair's tick reaching the runner → this bot's strategy step decided (the bots before it in the pair's fan-out and any queue wait included).",
    `${WARMUP_ROUNDS} unmeasured warm-up round of ticks first (the tick path's first run is JIT compilation).`,
    'Scenarios: stress = ±0.4% every second (levels 0.5% apart are crossed constantly); market = seeded random walk, σ 0.03% a second.',
    "Fill columns: an order update pushed by the paper venue (a resting order filled by the price move) reaching the runner → the strategy's decision on it (its take profit or next buy). In `stress` ~400 bots of a pair fill in the same tick, and each fill waits for the venue's save and for the fills before it.",
    'CPU is process CPU time over wall time during the ticking phase (100% = one core).',
    '',
    'GC: pauses during the ticking phase, count / total ms / longest ms.',
    '',
    '| scenario | bots | ticks | tick steps | p50 ms | p99 ms | max ms | fills | fill p50 ms | fill p99 ms | commands | CPU | peak RSS MB | GC n / ms / max | setup s |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...results.map(row),
    '',
    'Goal: 10,000 bots with p99 < 5 ms (tick → decision) and < 1 GB.',
    ...scenarios.map(verdict),
  ].join('\n');
  return [{ title: 'Grid Bot DCA runner: 1,000 and 10,000 bots', markdown }];
}
