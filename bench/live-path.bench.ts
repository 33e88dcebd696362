// The live path's cost as a ratio to paper (issue 38 #10), on the localhost Binance spot emulator
// (packages/venues/src/emulator, no faults) in a process of its own, the exchange's side:
//   1. an order round trip (limit buy create → fetch by id → cancel) through the real CcxtVenue + ccxt
//      over HTTP, against the same three calls on a PaperVenue, interleaved in one process;
//   2. 1,000 Grid Bot DCA bots on the real BotRunner, each user on an emulated live Binance account of
//      its own (one emulator per account: port, key, secret, paper account) against the same 1,000 bots
//      on paper accounts, each kind in a process of its own (so its CPU and peak RSS are its own), with
//      bots.bench.ts's in-memory runner store, ticks and stress scenario.
import { createDcaBot, type DcaState } from '@bytx/engine';
import {
  binanceEmulatorUrlOptions,
  CcxtVenue,
  MarketSimulator,
  MemoryPaperStore,
  PaperVenue,
  SimulatedMarketData,
  simulatedSymbols,
  type Order,
  type PaperMarketFeed,
  type Ticker,
  type Venue,
} from '@bytx/venues/live';
import { execFile, fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { MarketHub, VenueRegistry } from '../apps/server/src/context';
import type { BotRow } from '../apps/server/src/modules/bots/bots.repository';
import { dcaMarketRules } from '../apps/server/src/modules/bots/market-rules';
import { botKinds } from '../apps/server/src/modules/bots/kinds';
import { BotRunner, strategyIdOf } from '../apps/server/src/modules/bots/runner';
import { MemoryStore, normals, pct } from './bots.bench';
import {
  accountKey,
  accountSecret,
  SIM_OPTIONS,
  type FromEmulator,
  type ToEmulator,
} from './lib/emulator-accounts';
import type { BenchSection } from './run';

const EX = 'binance';
const SYMBOLS = simulatedSymbols().filter((x) => x.endsWith('/USDT'));
/** ccxt's own request timeout in CcxtVenue (ms): no fault is injected, so none should be reached. */
const HTTP_TIMEOUT_MS = 15_000;
type Kind = 'paper' | 'live';
type Scenario = 'stress' | 'market';

// --- the exchange process ---------------------------------------------------------------------------

interface EmulatorProcess {
  urls: string[];
  prices(list: [string, number][]): void;
  /** The exchange process's CPU time so far (ms), its RSS and the requests it answered. */
  usage(): Promise<{ cpuMs: number; rssMb: number; requests: number }>;
  stop(): Promise<void>;
}

async function startEmulators(accounts: number): Promise<EmulatorProcess> {
  const child = fork(path.join(import.meta.dirname, 'lib/emulator-accounts.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, EMULATOR_ACCOUNTS: String(accounts) },
  });
  const next = (kind: FromEmulator['kind']) =>
    new Promise<FromEmulator>((resolve, reject) => {
      const onMessage = (m: FromEmulator) => {
        if (m.kind !== kind) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m);
      };
      const onExit = (code: number | null) => reject(new Error(`emulator process ended (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const ready = (await next('ready')) as Extract<FromEmulator, { kind: 'ready' }>;
  const send = (m: ToEmulator) => child.send(m);
  return {
    urls: ready.urls,
    prices: (prices) => send({ kind: 'prices', prices }),
    usage: async () => {
      const got = next('cpu');
      send({ kind: 'cpu' });
      const m = (await got) as Extract<FromEmulator, { kind: 'cpu' }>;
      return { cpuMs: m.userMs + m.systemMs, rssMb: m.rssMb, requests: m.requests };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        send({ kind: 'stop' });
      }),
  };
}

/**
 * A live Binance venue as venue-factory.ts builds it, its URLs on account `i`'s emulator. `rateLimit`
 * false turns ccxt's own request throttle off (CcxtVenue keeps it on: it spaces a venue's requests by the
 * exchange's documented rate), which leaves HTTP, signing, parsing and the exchange's work.
 */
function liveVenue(url: string, i: number, rateLimit = true): CcxtVenue {
  return new CcxtVenue({
    exchange: EX,
    apiKey: accountKey(i),
    secret: accountSecret(i),
    ccxtOptions: {
      ...binanceEmulatorUrlOptions(url, HTTP_TIMEOUT_MS),
      ...(rateLimit ? {} : { enableRateLimit: false }),
    },
  });
}

/** The platform's market: every paper account's feed reads one list, as the server's hub does. */
function sharedFeed(sim: MarketSimulator): PaperMarketFeed {
  const simFeed = new SimulatedMarketData(sim, EX);
  const markets = simFeed.loadMarkets();
  return {
    exchange: simFeed.exchange,
    loadMarkets: () => markets,
    fetchTicker: (symbol) => simFeed.fetchTicker(symbol),
    fetchOrderBook: (symbol, limit) => simFeed.fetchOrderBook(symbol, limit),
    fetchOHLCV: (symbol, timeframe, since, limit) => simFeed.fetchOHLCV(symbol, timeframe, since, limit),
    subscribe: (symbol, listener) => simFeed.subscribe(symbol, listener),
    isListed: (symbol) => simFeed.isListed(symbol),
  };
}

// --- 1. order round trip ----------------------------------------------------------------------------

interface Trip {
  create: number;
  fetch: number;
  cancel: number;
  total: number;
}

async function roundTrips(n: number, warmup: number) {
  const emu = await startEmulators(1);
  const sim = new MarketSimulator(SIM_OPTIONS);
  const live = liveVenue(emu.urls[0]!, 0);
  const unthrottled = liveVenue(emu.urls[0]!, 0, false);
  const paper = new PaperVenue({
    accountId: 'round-trip',
    feed: sharedFeed(sim),
    store: new MemoryPaperStore(),
    initialBalances: { USDT: 1_000_000 },
  });
  const symbol = 'BTC/USDT';
  const m = sim.market(EX, symbol);
  // 10 % under the market: the buy rests until cancelled (no price moves during the round trips).
  const price = Math.round((sim.price(EX, symbol) * 0.9) / m.priceStep) * m.priceStep;
  const amount = Math.ceil((Math.max(m.minCost, 10) * 1.5) / price / m.amountStep) * m.amountStep;
  await live.loadMarkets();
  await unthrottled.loadMarkets();
  await paper.loadMarkets();
  const venues = { paper, live, unthrottled };
  type TripKind = keyof typeof venues;
  const trips: Record<TripKind, Trip[]> = { paper: [], live: [], unthrottled: [] };
  const one = async (v: Venue, id: string): Promise<Trip> => {
    const t0 = performance.now();
    const o = await v.createOrder({ symbol, side: 'buy', type: 'limit', amount, price, clientOrderId: id });
    const t1 = performance.now();
    const f = await v.fetchOrder(o.id, symbol);
    const t2 = performance.now();
    const c = await v.cancelOrder(o.id, symbol);
    const t3 = performance.now();
    if (o.status !== 'open' || f.status !== 'open' || c.status !== 'canceled') {
      throw new Error(`round trip ${id}: ${o.status} / ${f.status} / ${c.status}`);
    }
    return { create: t1 - t0, fetch: t2 - t1, cancel: t3 - t2, total: t3 - t0 };
  };
  for (let i = 0; i < warmup + n; i++) {
    // Interleaved, the order rotating, so drift of the machine falls on all three alike.
    const kinds: TripKind[] = ['paper', 'live', 'unthrottled'];
    for (let j = 0; j < kinds.length; j++) {
      const k = kinds[(i + j) % kinds.length]!;
      const t = await one(venues[k], `rt${k[0]}${i}`);
      if (i >= warmup) trips[k].push(t);
    }
  }
  await live.close();
  await unthrottled.close();
  await paper.close();
  await emu.stop();
  const stats = (xs: Trip[]) => {
    const of = (key: keyof Trip) => {
      const s = xs.map((t) => t[key]).sort((a, b) => a - b);
      return { p50: pct(s, 50), p99: pct(s, 99) };
    };
    return { create: of('create'), fetch: of('fetch'), cancel: of('cancel'), total: of('total') };
  };
  return {
    n,
    paper: stats(trips.paper),
    live: stats(trips.live),
    unthrottled: stats(trips.unthrottled),
  };
}

// --- 2. 1,000 bots, paper or live ------------------------------------------------------------------

interface BotsArgs {
  kind: Kind;
  nBots: number;
  ticks: number;
  scenario: Scenario;
}

async function bots(a: BotsArgs) {
  const { kind, nBots, ticks, scenario } = a;
  const normal = normals(42);
  const sim = new MarketSimulator(SIM_OPTIONS);
  const feed = sharedFeed(sim);
  const emu = kind === 'live' ? await startEmulators(nBots) : null;
  const paperStore = new MemoryPaperStore();
  const store = new MemoryStore();
  const start: Record<string, number> = {};
  for (const s of SYMBOLS) start[s] = sim.setPrice(EX, s, sim.price(EX, s));
  /** Every price set, per pair (wall ms, price): when a resting order's price was crossed. */
  const tickLog = new Map<string, { at: number; price: number }[]>(SYMBOLS.map((s) => [s, []]));
  const setPrice = (symbol: string, p: number) => {
    // Logged first: a paper account fills inside setPrice (its feed is synchronous).
    const entry = { at: performance.now(), price: p };
    tickLog.get(symbol)!.push(entry);
    // The exchange's price moves first (its simulator rounds to the tick size as this one does), then
    // the platform's market data sees it.
    emu?.prices([[symbol, p]]);
    entry.price = sim.setPrice(EX, symbol, p);
  };
  const hub = {
    subscribe: (_ex: string, symbol: string, l: (t: Ticker) => void) =>
      feed.subscribe(symbol, (price, ts) =>
        l({ symbol, last: price, bid: null, ask: null, percentage: null, timestamp: ts }),
      ),
    ticker: async (_ex: string, symbol: string) => sim.ticker(EX, symbol),
    market: async (_ex: string, symbol: string) => sim.market(EX, symbol),
  } as unknown as MarketHub;
  const venues = new Map<string, Venue>();
  const registry: VenueRegistry = {
    forUser: async (userId) => venues.get(userId)!,
    connectionKind: async () => kind,
  };
  const lat: number[] = [];
  const orderLat: number[] = [];
  /** A resting limit order's price crossed by a tick → its fill pushed by the venue to the bot. */
  const learnLat: number[] = [];
  const fillAt = new Map<string, number>();
  const sendLat: number[] = [];
  let commands = 0;
  const runner = new BotRunner({
    kinds: botKinds,
    store,
    market: () => hub,
    venues: () => registry,
    log: pino({ level: 'silent' }),
    runnerId: 'bench',
    takeAllLeases: true,
    autoRun: true,
    heartbeatMs: 3_600_000,
    onStep: (id, ms, n, source) => {
      if (source === 'tick') lat.push(ms);
      else if (source === 'order') {
        orderLat.push(ms);
        fillAt.set(id, performance.now() - ms);
      }
      commands += n;
    },
  });
  /** A bot's resting limit orders (exchange id → pair, side, price, when placed). */
  type Resting = Map<string, { symbol: string; side: 'buy' | 'sell'; price: number; at: number }>;
  const learned = (resting: Resting, o: Order) => {
    const r = resting.get(o.id);
    if (!r || o.status !== 'closed') return;
    resting.delete(o.id);
    const crossed = tickLog
      .get(r.symbol)!
      .find((t) => t.at >= r.at && (r.side === 'buy' ? t.price <= r.price : t.price >= r.price));
    if (crossed) learnLat.push(performance.now() - crossed.at);
  };
  const setupStart = performance.now();
  for (let i = 0; i < nBots; i++) {
    // The number leads the id: a bot's client ids start with the first 20 hex digits of its id
    // (strategyIdOf), so every bot's must differ there.
    const id = `${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`;
    const userId = `${String(i).padStart(8, '0')}-0000-4000-9000-000000000000`;
    const resting: Resting = new Map();
    const symbol = SYMBOLS[i % SYMBOLS.length]!;
    const venue: Venue =
      kind === 'live'
        ? liveVenue(emu!.urls[i]!, i)
        : new PaperVenue({ accountId: userId, feed, store: paperStore, initialBalances: { USDT: 10_000 } });
    const createOrder = venue.createOrder.bind(venue);
    venue.createOrder = async (req) => {
      const at = fillAt.get(id);
      if (at !== undefined) {
        sendLat.push(performance.now() - at);
        fillAt.delete(id);
      }
      const placedAt = performance.now();
      const o = await createOrder(req);
      if (o.status === 'open' && req.type === 'limit' && req.price !== undefined) {
        resting.set(o.id, { symbol: req.symbol, side: req.side, price: req.price, at: placedAt });
      }
      return o;
    };
    const onOrderUpdate = venue.onOrderUpdate.bind(venue);
    venue.onOrderUpdate = (listener) =>
      onOrderUpdate((o) => {
        learned(resting, o);
        listener(o);
      });
    venues.set(userId, venue);
    const state: DcaState = createDcaBot(strategyIdOf(id), {
      symbol,
      amount: 20,
      tpPct: 0.5,
      sepPct: 0.5,
      os: 3,
      direction: 'LONG',
      raEnabled: false,
      market: dcaMarketRules(sim.market(EX, symbol)),
    });
    const row: BotRow = {
      id,
      userId,
      kind: 'grid-dca',
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
    };
    store.bots.set(id, row);
  }
  await runner.start();
  await runner.idle();
  const setupS = (performance.now() - setupStart) / 1000;
  let price = { ...start };
  const slot = 1000 / SYMBOLS.length;
  const round = async (k: number) => {
    const roundStart = performance.now();
    for (let i = 0; i < SYMBOLS.length; i++) {
      const s = SYMBOLS[i]!;
      const wait = roundStart + i * slot - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const step = scenario === 'stress' ? Math.sin(k * 1.7 + i) * 0.004 : normal() * 0.0003;
      price = { ...price, [s]: price[s]! * (1 + step) };
      setPrice(s, price[s]!);
    }
    await runner.idle();
    const spent = performance.now() - roundStart;
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - spent)));
  };
  await round(-1);
  for (const xs of [lat, orderLat, sendLat, learnLat]) xs.length = 0;
  fillAt.clear();
  commands = 0;
  if (global.gc) global.gc();
  const emu0 = await emu?.usage();
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  let rssPeak = process.memoryUsage().rss;
  for (let k = 0; k < ticks; k++) {
    await round(k);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }
  const wall = performance.now() - wall0;
  const cpu = process.cpuUsage(cpu0);
  const emu1 = await emu?.usage();
  await runner.close();
  for (const v of venues.values()) await v.close();
  await emu?.stop();
  for (const xs of [lat, orderLat, sendLat, learnLat]) xs.sort((x, y) => x - y);
  return {
    kind,
    scenario,
    nBots,
    ticks,
    setupS,
    steps: lat.length,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    fills: orderLat.length,
    fillP50: pct(orderLat, 50),
    fillP99: pct(orderLat, 99),
    learned: learnLat.length,
    learnP50: pct(learnLat, 50),
    learnP99: pct(learnLat, 99),
    sendP50: pct(sendLat, 50),
    sendP99: pct(sendLat, 99),
    commands,
    trades: store.trades,
    cpuPct: ((cpu.user + cpu.system) / 1000 / wall) * 100,
    rssMb: rssPeak / 2 ** 20,
    emuCpuPct: emu0 && emu1 ? ((emu1.cpuMs - emu0.cpuMs) / wall) * 100 : null,
    emuRequestsPerS: emu0 && emu1 ? (emu1.requests - emu0.requests) / (wall / 1000) : null,
    emuRssMb: emu1?.rssMb ?? null,
  };
}

// --- processes and the section -----------------------------------------------------------------------

type Job = { job: 'round-trips'; n: number; warmup: number } | ({ job: 'bots' } & BotsArgs);
const RESULT_LINE = '@@live-path-result ';

async function inChild<T>(job: Job): Promise<T> {
  const out = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', import.meta.filename],
      { env: { ...process.env, LIVE_PATH_ONE: JSON.stringify(job) }, maxBuffer: 64 * 2 ** 20 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    );
  });
  const line = out.split('\n').find((l) => l.startsWith(RESULT_LINE));
  if (!line) throw new Error(`live-path bench child printed no result:\n${out}`);
  return JSON.parse(line.slice(RESULT_LINE.length)) as T;
}

if (process.env.LIVE_PATH_ONE && process.argv[1] === import.meta.filename) {
  const job = JSON.parse(process.env.LIVE_PATH_ONE) as Job;
  const r = job.job === 'round-trips' ? await roundTrips(job.n, job.warmup) : await bots(job);
  console.log(RESULT_LINE + JSON.stringify(r));
  process.exit(0);
}

type Trips = Awaited<ReturnType<typeof roundTrips>>;
type Bots = Awaited<ReturnType<typeof bots>>;

export default async function livePathBench(): Promise<BenchSection[]> {
  const n = Number(process.env.ROUND_TRIPS ?? 500);
  const nBots = Number(process.env.LIVE_BOTS ?? 1_000);
  const ticks = Number(process.env.LIVE_TICKS ?? 20);
  const scenario = (process.env.LIVE_SCENARIO ?? 'stress') as Scenario;
  const load0 = os.loadavg()[0]!;
  const trips = await inChild<Trips>({ job: 'round-trips', n, warmup: 50 });
  console.log(
    `round trip p50 paper ${trips.paper.total.p50.toFixed(2)} ms, live ${trips.live.total.p50.toFixed(2)} ms`,
  );
  const runs: Bots[] = [];
  for (const kind of ['paper', 'live'] as const) {
    const r = await inChild<Bots>({ job: 'bots', kind, nBots, ticks, scenario });
    console.log(
      `${kind} ${nBots} bots: p99 ${r.p99.toFixed(2)} ms, fill p99 ${r.fillP99.toFixed(1)} ms, ${r.rssMb.toFixed(0)} MB`,
    );
    runs.push(r);
  }
  const load1 = os.loadavg()[0]!;
  const x = (v: number, base: number) => (base > 0 ? `×${(v / base).toFixed(1)}` : '–');
  const ms = (v: number) => v.toFixed(v < 10 ? 2 : 1);
  const pp = (v: { p50: number; p99: number }) => `${ms(v.p50)} / ${ms(v.p99)}`;
  const tripRow = (name: string, key: keyof Trips['paper']) => {
    const [p, l, u] = [trips.paper[key], trips.live[key], trips.unthrottled[key]];
    return `| ${name} | ${pp(p)} | ${pp(l)} | ${x(l.p50, p.p50)} / ${x(l.p99, p.p99)} | ${pp(u)} | ${x(u.p50, p.p50)} / ${x(u.p99, p.p99)} |`;
  };
  const [paper, live] = runs as [Bots, Bots];
  const botRow = (r: Bots) =>
    `| ${r.kind} | ${r.nBots.toLocaleString('en')} | ${r.ticks} | ${r.steps.toLocaleString('en')} | ${ms(r.p50)} / ${ms(r.p99)} | ${r.fills.toLocaleString('en')} | ${ms(r.fillP50)} / ${ms(r.fillP99)} | ${r.learned.toLocaleString('en')} | ${ms(r.learnP50)} / ${ms(r.learnP99)} | ${ms(r.sendP50)} / ${ms(r.sendP99)} | ${r.commands.toLocaleString('en')} | ${r.trades.toLocaleString('en')} | ${r.cpuPct.toFixed(0)}% | ${r.rssMb.toFixed(0)} | ${r.setupS.toFixed(1)} |`;
  const ratioRow = (name: string, p: number, l: number, unit: string) =>
    `| ${name} | ${p.toFixed(unit === 'MB' || unit === '%' ? 0 : 2)} | ${l.toFixed(unit === 'MB' || unit === '%' ? 0 : 2)} | ${x(l, p)} |`;
  const markdown = [
    "The live path against paper, in one run: the real CcxtVenue + ccxt's binance over HTTP against the localhost",
    "Binance spot emulator (`packages/venues/src/emulator`, no faults; ccxt's `urls.api` pointed at it as",
    '`BINANCE_EMULATOR_URL` does), which runs in a process of its own (the exchange: its CPU and memory are not',
    "the platform's), against the same calls or bots on PaperVenue.",
    '',
    `**Order round trip**: a resting limit buy created, fetched by id, cancelled; ${n} round trips of each kind after`,
    '50 unmeasured ones, interleaved in one process (the order of the three kinds rotating each round). Live is',
    "CcxtVenue as the platform builds it, ccxt's request throttle on (it spaces one venue's requests by Binance's",
    'documented rate: ccxt `rateLimit` 50 ms times each endpoint\'s weight); "unthrottled" is the same venue with',
    '`enableRateLimit: false`, what HTTP, signing, parsing and the emulator take.',
    '',
    '| call | paper p50 / p99 ms | live p50 / p99 ms | live / paper p50 / p99 | unthrottled p50 / p99 ms | unthrottled / paper |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    tripRow('create', 'create'),
    tripRow('fetch by id', 'fetch'),
    tripRow('cancel', 'cancel'),
    tripRow('round trip', 'total'),
    '',
    `**${nBots.toLocaleString('en')} Grid Bot DCA bots** on the real BotRunner (bots.bench.ts's in-memory runner store, its`,
    `${scenario} scenario: 25 USDT pairs, each moved once a second), one user per bot: on paper (PaperVenue per user,`,
    'MemoryPaperStore) or live (a CcxtVenue per user, each on an emulated account of its own: one emulator per',
    'account, its own port, key and secret, all on one simulator whose prices the platform process sets, the',
    "exchange's price first). Each kind in a process of its own; 1 unmeasured warm-up round, then",
    `${ticks} measured rounds. Live venues poll their open orders every ${5_000 / 1000} s (LIVE_ORDER_POLL_MS, the production`,
    'default): REST cannot push a fill.',
    'Columns as in the runner bench: tick → decision; fill = an order update pushed by the venue reaching the runner →',
    "the strategy's decision on it; fill learned = a tick crossing a resting limit order's price → the venue's push of",
    'its fill reaching the bot (paper: at once; live: the next poll); fill → order sent = that fill reaching the runner →',
    'the first order it decided reaching the venue. CPU is the platform process over wall time during the ticks.',
    '',
    '| venue | bots | ticks | tick steps | tick → decision p50 / p99 ms | fills | fill p50 / p99 ms | fills learned | learned p50 / p99 ms | fill → order sent p50 / p99 ms | commands | trades | CPU | peak RSS MB | setup s |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    botRow(paper),
    botRow(live),
    '',
    `The exchange process during the live run's ticks: ${live.emuRequestsPerS?.toFixed(0)} requests/s, CPU ${live.emuCpuPct?.toFixed(0)}%, RSS ${live.emuRssMb?.toFixed(0)} MB.`,
    '',
    'Ratios live / paper, same run:',
    '',
    '| measure | paper | live | live / paper |',
    '| --- | ---: | ---: | ---: |',
    ratioRow('round trip p50 ms', trips.paper.total.p50, trips.live.total.p50, 'ms'),
    ratioRow('round trip p99 ms', trips.paper.total.p99, trips.live.total.p99, 'ms'),
    ratioRow('round trip p50 ms, unthrottled', trips.paper.total.p50, trips.unthrottled.total.p50, 'ms'),
    ratioRow('round trip p99 ms, unthrottled', trips.paper.total.p99, trips.unthrottled.total.p99, 'ms'),
    ratioRow('tick → decision p50 ms', paper.p50, live.p50, 'ms'),
    ratioRow('tick → decision p99 ms', paper.p99, live.p99, 'ms'),
    ratioRow('fill p50 ms', paper.fillP50, live.fillP50, 'ms'),
    ratioRow('fill p99 ms', paper.fillP99, live.fillP99, 'ms'),
    ratioRow('fill learned p50 ms', paper.learnP50, live.learnP50, 'ms'),
    ratioRow('fill learned p99 ms', paper.learnP99, live.learnP99, 'ms'),
    ratioRow('CPU %', paper.cpuPct, live.cpuPct, '%'),
    ratioRow('peak RSS MB', paper.rssMb, live.rssMb, 'MB'),
    '',
    `Load average (1 min) ${load0.toFixed(2)} at the start, ${load1.toFixed(2)} at the end (2 cores, shared).`,
  ].join('\n');
  return [{ title: 'Live path on the exchange emulator: order round trip and 1,000 bots', markdown }];
}
