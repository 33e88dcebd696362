// Grid Bot DCA at scale: 1,000 and 10,000 bots on paper accounts in one process, the real runner
// (per-bot queues, journal, reconcile) and the real strategy and PaperVenue, on three stores side by
// side: in memory (the runner's own cost, the baseline), PGlite (a fresh embedded database in a temp
// folder, migrated as the server does it) and PostgreSQL (a fresh database on DATABASE_URL, dropped
// after), the last two with the server's BotsRepository and DbPaperStore. Prices of
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
  type PaperMarketFeed,
  type PaperStore,
  type Ticker,
  type Venue,
} from '@bytx/venues';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import pino from 'pino';
import type { MarketHub, VenueRegistry } from '../apps/server/src/context';
import { openDatabase } from '../apps/server/src/db/client';
import { bots, users } from '../apps/server/src/db/schema/index';
import {
  BotsRepository,
  type BotOrderRow,
  type BotRow,
  type BotWrite,
  type NewBotEventRow,
  type NewBotOrderRow,
} from '../apps/server/src/modules/bots/bots.repository';
import { dcaMarketRules } from '../apps/server/src/modules/bots/market-rules';
import { botKinds } from '../apps/server/src/modules/bots/kinds';
import { BotRunner, strategyIdOf, type RunnerStore } from '../apps/server/src/modules/bots/runner';
import { GroupCommitStore } from '../apps/server/src/modules/bots/runner/group-commit';
import { DbPaperStore, paperAccountId } from '../apps/server/src/modules/exchanges/paper-store';
import { freshPostgresUrl } from '../apps/server/test/helpers';
import type { BenchSection } from './run';

const EX = 'binance';
/** Rounds of ticks before the measured ones (see `round`). */
const WARMUP_ROUNDS = 1;
/** Every USDT pair of the simulated market (25): bots are spread over them. */
const SYMBOLS = simulatedSymbols().filter((x) => x.endsWith('/USDT'));
/** The database stores' runner writes go through GroupCommitStore (GROUP_COMMIT=0: BotsRepository alone). */
const GROUP_COMMIT = process.env.GROUP_COMMIT !== '0';

/**
 * The runner's store in memory: same contract as GroupCommitStore (writes applied in the order they are
 * made, `flushed`), so the runner follows the same rules on it as on the databases.
 */
export class MemoryStore implements RunnerStore {
  async flushed() {}
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

export const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

type Scenario = 'stress' | 'market';

/** Seeded standard normal draws (Box-Muller over mulberry32), so runs are repeatable. */
export function normals(seed: number) {
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

type StoreKind = 'memory' | 'pglite' | 'postgres';

/** The stores of one run: the runner's, the paper accounts', how the bot rows are seeded, and cleanup. */
interface Stores {
  store: RunnerStore;
  paperStore: PaperStore;
  /** Inserts the users (database stores: bots reference them) and the bots. */
  seed(rows: BotRow[]): Promise<void>;
  /** Closed trades recorded (rows of bot_trades). */
  trades(): Promise<number>;
  close(): Promise<void>;
}

function memoryStores(): Stores {
  const store = new MemoryStore();
  return {
    store,
    paperStore: new MemoryPaperStore(),
    seed: async (rows) => {
      for (const r of rows) store.bots.set(r.id, r);
    },
    trades: async () => store.trades,
    close: async () => undefined,
  };
}

/** Rows per INSERT when seeding (well under PostgreSQL's 65,535 parameters a statement). */
const SEED_CHUNK = 1_000;

/**
 * A fresh database: PGlite in a temp folder (as the server keeps it) or a database created on
 * DATABASE_URL's server and dropped by `close`; migrated by openDatabase as the server does.
 */
async function databaseStores(
  kind: 'pglite' | 'postgres',
  at: DatabaseLocation,
  sendLane: boolean,
): Promise<Stores> {
  const database = await openDatabase({
    databaseUrl: kind === 'postgres' ? at.url : undefined,
    dataDir: path.join(at.dataDir, 'db'),
  });
  const repo = new BotsRepository(database.db);
  return {
    store: GROUP_COMMIT ? new GroupCommitStore(repo, database.db, { sendLane }) : repo,
    paperStore: new DbPaperStore(database.db),
    seed: async (rows) => {
      // Bulk inserts: 10,000 users and bots in 20 statements rather than 20,000.
      const userIds = [...new Set(rows.map((r) => r.userId))];
      for (let i = 0; i < userIds.length; i += SEED_CHUNK) {
        await database.db
          .insert(users)
          .values(
            userIds
              .slice(i, i + SEED_CHUNK)
              .map((id) => ({ id, email: `${id}@bench.invalid`, passwordHash: 'x' })),
          );
      }
      for (let i = 0; i < rows.length; i += SEED_CHUNK) {
        await database.db.insert(bots).values(rows.slice(i, i + SEED_CHUNK));
      }
    },
    trades: async () => {
      const [row] = await database.sql.query('SELECT count(*)::int AS n FROM bot_trades');
      return Number(row?.n ?? 0);
    },
    close: () => database.close(),
  };
}

/** Where a run's database is: a PGlite folder, and a database on DATABASE_URL's server. */
interface DatabaseLocation {
  dataDir: string;
  url: string | undefined;
}

/** A new, empty location (the database is created and migrated by the first openDatabase). */
async function newLocation(
  kind: 'pglite' | 'postgres',
): Promise<DatabaseLocation & { drop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-bench-bots-'));
  const fresh = kind === 'postgres' ? await freshPostgresUrl('bytx_bench_bots') : null;
  return {
    dataDir,
    url: fresh?.url,
    drop: async () => {
      await fresh?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One configuration. On a database it runs in two processes (`runApart`): `seed` creates the users and
 * bots and ends; `measure` starts the runner on the bots already there, as a server starts.
 */
async function run(a: RunArgs) {
  const { nBots, ticks, scenario, storeKind } = a;
  const normal = normals(42);
  const sim = new MarketSimulator({ seed: 7, startTime: Date.UTC(2025, 0, 15) });
  const simFeed = new SimulatedMarketData(sim, EX);
  // The paper accounts' market list is one object for all of them, as in the server, where every
  // account's feed reads the market-data hub's cached list (`hubFeed`, MarketHub.markets). Each account
  // loading its own copy from the simulator cost ~800 numbers and ~50 strings a bot (~20 KB).
  const markets = simFeed.loadMarkets();
  const feed: PaperMarketFeed = {
    exchange: simFeed.exchange,
    loadMarkets: () => markets,
    fetchTicker: (symbol) => simFeed.fetchTicker(symbol),
    fetchOrderBook: (symbol, limit) => simFeed.fetchOrderBook(symbol, limit),
    fetchOHLCV: (symbol, timeframe, since, limit) => simFeed.fetchOHLCV(symbol, timeframe, since, limit),
    subscribe: (symbol, listener) => simFeed.subscribe(symbol, listener),
    isListed: (symbol) => simFeed.isListed(symbol),
  };
  const stores =
    storeKind === 'memory' ? memoryStores() : await databaseStores(storeKind, a.at!, a.sendLane ?? true);
  const { store, paperStore } = stores;
  /** Every group commit of the runner's and the paper accounts' writes: from the batch's start to its commit. */
  const commits: { of: 'runner' | 'paper'; ms: number; items: number }[] = [];
  for (const [of, s] of [
    ['runner', store],
    ['paper', paperStore],
  ] as const) {
    // The stores' GroupCommit (lib/batcher.ts), timed from outside: bench instrumentation only.
    const gc = (s as unknown as { batch?: { opts: { commit: (items: unknown[]) => Promise<void> } } }).batch;
    if (!gc) continue;
    const commit = gc.opts.commit;
    gc.opts.commit = async (items) => {
      const t = performance.now();
      try {
        await commit(items);
      } finally {
        commits.push({ of, ms: performance.now() - t, items: items.length });
      }
    };
  }
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
  const lat: number[] = [];
  /** Order updates pushed by the venue (fills on a price move) → the strategy's decision on them. */
  const orderLat: number[] = [];
  /** A fill decided (bot id → when it reached the runner), until the bot's next order reaches its venue. */
  const fillAt = new Map<string, number>();
  /** Fill reaching the runner → the first order its decision sends reaching the venue. */
  const sendLat: number[] = [];
  /**
   * The same fill's stages: reaching the runner → its step's write handed to the store (the bot's queue,
   * the decision and the paper account's save of the fill), then that write's commit (journal before send).
   */
  const handedLat: number[] = [];
  const journalWait: number[] = [];
  const write = store.write.bind(store);
  store.write = (w, opts) => {
    const at = w.newOrders?.length ? fillAt.get(w.botId) : undefined;
    const p = write(w, opts);
    if (at === undefined) return p;
    const handed = performance.now();
    handedLat.push(handed - at);
    return p.then(() => void journalWait.push(performance.now() - handed));
  };
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
    onStep: (_id, ms, n, source) => {
      if (source === 'tick') lat.push(ms);
      else if (source === 'order') {
        orderLat.push(ms);
        fillAt.set(_id, performance.now() - ms);
      }
      commands += n;
    },
  });
  const setupStart = performance.now();
  const rows: BotRow[] = [];
  for (let i = 0; i < nBots; i++) {
    // The number leads: a bot's order ids start with the first 20 hex digits of its id (strategyIdOf),
    // so bots numbered only in the last group would share every client order id.
    const id = `${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`;
    // One user (and paper account) per bot; a uuid, as the database's users.id.
    const userId = `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`;
    const symbol = SYMBOLS[i % SYMBOLS.length]!;
    const venue = new PaperVenue({
      accountId: storeKind === 'memory' ? userId : paperAccountId(userId, EX),
      feed,
      store: paperStore,
      initialBalances: { USDT: 10_000 },
    });
    const createOrder = venue.createOrder.bind(venue);
    venue.createOrder = (req) => {
      const at = fillAt.get(id);
      if (at !== undefined) {
        sendLat.push(performance.now() - at);
        fillAt.delete(id);
      }
      return createOrder(req);
    };
    venues.set(userId, venue);
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
    rows.push({
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
    });
  }
  if (a.phase !== 'measure') await stores.seed(rows);
  rows.length = 0;
  const seedMs = a.phase === 'measure' ? (a.seedMs ?? 0) : performance.now() - setupStart;
  if (a.phase === 'seed') {
    await stores.close();
    return { seedMs };
  }
  await runner.start();
  await runner.idle();
  const setupMs = performance.now() - setupStart + (a.phase === 'measure' ? seedMs : 0);
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
  sendLat.length = 0;
  handedLat.length = 0;
  journalWait.length = 0;
  commits.length = 0;
  fillAt.clear();
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
  const trades = await stores.trades();
  await stores.close();
  lat.sort((a, b) => a - b);
  orderLat.sort((a, b) => a - b);
  sendLat.sort((a, b) => a - b);
  handedLat.sort((a, b) => a - b);
  journalWait.sort((a, b) => a - b);
  const commitsOf = (of: 'runner' | 'paper') => {
    const c = commits.filter((x) => x.of === of);
    const ms = c.map((x) => x.ms).sort((a, b) => a - b);
    return {
      n: c.length,
      ms: ms.reduce((a, b) => a + b, 0),
      p99: pct(ms, 99),
      items: c.reduce((a, b) => a + b.items, 0),
    };
  };
  return {
    sendLane: a.sendLane ?? null,
    handedP50: pct(handedLat, 50),
    handedP99: pct(handedLat, 99),
    journalP50: pct(journalWait, 50),
    journalP99: pct(journalWait, 99),
    runnerCommits: commitsOf('runner'),
    paperCommits: commitsOf('paper'),
    scenario,
    storeKind,
    nBots,
    ticks,
    setupS: setupMs / 1000,
    seedS: seedMs / 1000,
    steps: lat.length,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    max: lat[lat.length - 1] ?? 0,
    orderSteps: orderLat.length,
    orderP50: pct(orderLat, 50),
    orderP99: pct(orderLat, 99),
    sendP50: pct(sendLat, 50),
    sendP99: pct(sendLat, 99),
    commands,
    cpuPct: ((cpu.user + cpu.system) / 1000 / wall) * 100,
    rssMb: rssPeak / 2 ** 20,
    gcCount: gcPauses.length,
    gcTotalMs: gcPauses.reduce((a, b) => a + b, 0),
    gcMaxMs: Math.max(0, ...gcPauses),
    trades,
  };
}

interface RunArgs {
  nBots: number;
  ticks: number;
  scenario: Scenario;
  storeKind: StoreKind;
  /** The database (database stores). */
  at?: DatabaseLocation;
  /** Database stores: GroupCommitStore's send lane on (default) or off (one FIFO queue, the runner before issue 45 point 6). */
  sendLane?: boolean | undefined;
  /** `seed`: create the users and bots, then end; `measure`: run on them (`seedMs`: what seeding took). */
  phase?: 'seed' | 'measure';
  seedMs?: number;
}
type Measured = Exclude<Awaited<ReturnType<typeof run>>, { seedMs: number }>;
const RESULT_LINE = '@@bots-bench-result ';

/** Runs `run(args)` in a new process (this file, with `BOTS_BENCH_ONE`) and returns what it returned. */
async function inChild<T>(args: RunArgs): Promise<T> {
  const out = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', import.meta.filename],
      { env: { ...process.env, BOTS_BENCH_ONE: JSON.stringify(args) }, maxBuffer: 64 * 2 ** 20 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    );
  });
  const line = out.split('\n').find((l) => l.startsWith(RESULT_LINE));
  if (!line) throw new Error(`bots bench child printed no result:\n${out}`);
  return JSON.parse(line.slice(RESULT_LINE.length)) as T;
}

/**
 * One configuration in processes of its own, so its peak RSS is its own. Run one after the other in
 * one process, each configuration's RSS also held what V8 and malloc kept of the ones before (freed
 * pages are not given back), and a database's also what seeding 10,000 users and bots left (bulk
 * inserts of 1,000 rows: about 200 MB on PGlite), which a server starting on bots it already has
 * never carries. So a database is seeded by one process and measured by the next.
 */
async function runApart(args: RunArgs): Promise<Measured> {
  if (args.storeKind === 'memory') return inChild<Measured>(args);
  const at = await newLocation(args.storeKind);
  try {
    const { seedMs } = await inChild<{ seedMs: number }>({
      ...args,
      at: { dataDir: at.dataDir, url: at.url },
      phase: 'seed',
    });
    return await inChild<Measured>({
      ...args,
      at: { dataDir: at.dataDir, url: at.url },
      phase: 'measure',
      seedMs,
    });
  } finally {
    await at.drop();
  }
}

if (process.env.BOTS_BENCH_ONE && process.argv[1] === import.meta.filename) {
  const r = await run(JSON.parse(process.env.BOTS_BENCH_ONE) as RunArgs);
  console.log(RESULT_LINE + JSON.stringify(r));
  process.exit(0);
}

const laneLabel = (r: { sendLane: boolean | null }) =>
  r.sendLane === null ? '' : r.sendLane ? ' (send lane)' : ' (one queue)';
const fmtCommits = (c: { n: number; ms: number; p99: number; items: number }) =>
  `${c.n} × ${c.n ? (c.items / c.n).toFixed(0) : 0} items, ${c.ms.toFixed(0)} ms in all, p99 ${c.p99.toFixed(0)} ms`;

export default async function botsBench(): Promise<BenchSection[]> {
  const ticks = Number(process.env.TICKS ?? 10);
  const small = Number(process.env.SMALL ?? 1_000);
  const large = Number(process.env.LARGE ?? 10_000);
  const scenarios = (process.env.SCENARIOS ?? 'stress,market').split(',') as Scenario[];
  const pgSkipped = !process.env.DATABASE_URL;
  const stores = (process.env.STORES ?? 'memory,pglite,postgres')
    .split(',')
    .filter((k) => k !== 'postgres' || !pgSkipped) as StoreKind[];
  if (pgSkipped) console.log('[skip] bots bench on PostgreSQL: DATABASE_URL is not set');
  const results: (Measured & { load: number })[] = [];
  // SEND_LANE=0 / 1: one setting; default both, the queue before issue 45 point 6 first, in the same run.
  const lanes =
    process.env.SEND_LANE === '0' ? [false] : process.env.SEND_LANE === '1' ? [true] : [false, true];
  for (const scenario of scenarios) {
    for (const n of [small, large]) {
      for (const kind of stores) {
        // The database stores run the goal's size only (DB_SMALL=1: both), so the bench stays within
        // minutes: starting 10,000 bots on a database is most of a run.
        if (kind !== 'memory' && n !== large && process.env.DB_SMALL !== '1') continue;
        // The database stores run each commit setting asked (SEND_LANE), one after the other in this run.
        for (const sendLane of kind === 'memory' ? [undefined] : lanes) {
          const r = await runApart({ nBots: n, ticks, scenario, storeKind: kind, sendLane });
          console.log(
            `${scenario} ${n} ${kind}${laneLabel(r)}: load ${os.loadavg()[0]!.toFixed(1)}, p99 ${r.p99.toFixed(2)} ms, fill p99 ${r.orderP99.toFixed(1)} ms, ` +
              `fill → handed p50/p99 ${r.handedP50.toFixed(0)}/${r.handedP99.toFixed(0)}, journal commit ${r.journalP50.toFixed(0)}/${r.journalP99.toFixed(0)}, ` +
              `sent ${r.sendP50.toFixed(0)}/${r.sendP99.toFixed(0)} ms; commits runner ${fmtCommits(r.runnerCommits)}, paper ${fmtCommits(r.paperCommits)}; ` +
              `${r.rssMb.toFixed(0)} MB, setup ${r.setupS.toFixed(1)} s`,
          );
          results.push({ ...r, load: os.loadavg()[0]! });
        }
      }
    }
  }
  const row = (r: (typeof results)[number]) =>
    `| ${r.storeKind}${laneLabel(r)} | ${r.scenario} | ${r.nBots.toLocaleString('en')} | ${r.ticks} | ${r.steps.toLocaleString('en')} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.max.toFixed(1)} | ${r.orderSteps.toLocaleString('en')} | ${r.orderP50.toFixed(2)} | ${r.orderP99.toFixed(2)} | ${r.sendP50.toFixed(1)} / ${r.sendP99.toFixed(1)} | ${r.commands.toLocaleString('en')} | ${r.trades.toLocaleString('en')} | ${r.cpuPct.toFixed(0)}% | ${r.rssMb.toFixed(0)} | ${r.gcCount} / ${r.gcTotalMs.toFixed(0)} / ${r.gcMaxMs.toFixed(1)} | ${r.seedS.toFixed(1)} / ${r.setupS.toFixed(1)} |`;
  const ratio = (v: number, base: number) => (base > 0 ? `×${(v / base).toFixed(1)}` : '–');
  // A database store's row in the goals table is its last setting run (the send lane, when both ran).
  const find = (scenario: Scenario, n: number, kind: StoreKind) =>
    results.findLast((r) => r.scenario === scenario && r.nBots === n && r.storeKind === kind);
  // fill → order sent with one queue (before) and the send lane, same run, each database store.
  const lanesTable = scenarios.flatMap((scenario) =>
    stores.flatMap((kind) => {
      const of = (lane: boolean) =>
        results.find(
          (r) => r.scenario === scenario && r.nBots === large && r.storeKind === kind && r.sendLane === lane,
        );
      const [before, after] = [of(false), of(true)];
      if (!before || !after || scenario !== 'stress') return [];
      return [
        `| ${kind} | ${before.load.toFixed(1)} / ${after.load.toFixed(1)} | ${before.sendP50.toFixed(0)} / ${before.sendP99.toFixed(0)} | ` +
          `${after.sendP50.toFixed(0)} / ${after.sendP99.toFixed(0)} | ×${(after.sendP99 / before.sendP99).toFixed(2)} | ` +
          `${before.handedP99.toFixed(0)} → ${after.handedP99.toFixed(0)} | ${before.journalP99.toFixed(0)} → ${after.journalP99.toFixed(0)} | ` +
          `${before.p99.toFixed(2)} → ${after.p99.toFixed(2)} (×${(after.p99 / before.p99).toFixed(2)}) | ${after.sendP99 <= 250 ? 'met' : 'NOT met'} |`,
      ];
    }),
  );
  // Goals at 10,000 bots: tick → decision p99 ≤ 5 ms and RSS ≤ 1 GB in both scenarios, fills p99 ≤ 50 ms
  // in the stress scenario (the market walk fills next to nothing in 10 s).
  const summary = scenarios.flatMap((scenario) =>
    stores.map((kind) => {
      const r = find(scenario, large, kind)!;
      const base = find(scenario, large, 'memory');
      const fillGoal = scenario === 'stress' ? r.orderP99 <= 50 : true;
      const met = r.p99 <= 5 && r.rssMb <= 1024 && fillGoal;
      return (
        `| ${scenario} | ${kind} | ${r.p99.toFixed(2)} | ${base ? ratio(r.p99, base.p99) : '–'} | ` +
        `${r.orderP99.toFixed(1)} | ${base ? ratio(r.orderP99, base.orderP99) : '–'} | ` +
        `${r.rssMb.toFixed(0)} | ${base ? ratio(r.rssMb, base.rssMb) : '–'} | ${met ? 'met' : 'NOT met'} |`
      );
    }),
  );
  const markdown = [
    'Real BotRunner + Grid Bot DCA strategy + PaperVenue per bot (one user and paper account each), on three stores:',
    "`memory` (the bench's in-memory RunnerStore and MemoryPaperStore: the runner's own cost, the baseline),",
    '`pglite` (a fresh embedded PGlite database in a temp folder, migrated as the server does) and `postgres`',
    "(a fresh database on DATABASE_URL's server, dropped after), both with the server's BotsRepository",
    `${GROUP_COMMIT ? "behind the runner's GroupCommitStore (one transaction for the writes that arrive together)" : 'alone (GROUP_COMMIT=0)'} and DbPaperStore.`,
    ...(pgSkipped ? ['**PostgreSQL rows skipped: DATABASE_URL is not set.**'] : []),
    "25 USDT pairs (~400 bots each at 10,000), each moved once a second (the pairs' ticks spread over the second).",
    "Latency: the pair's tick reaching the runner → this bot's strategy step decided (the bots before it in the pair's fan-out and any queue wait included).",
    `${WARMUP_ROUNDS} unmeasured warm-up round of ticks first (the tick path's first run is JIT compilation), then ${ticks} measured rounds.`,
    'Scenarios: stress = ±0.4% every second (levels 0.5% apart are crossed constantly); market = seeded random walk, σ 0.03% a second.',
    "Fill columns: an order update pushed by the paper venue (a resting order filled by the price move) reaching the runner → the strategy's decision on it (its take profit or next buy). The decision is made at once; what it decided is written and sent only after the paper account's save of the fill has committed, then the order's journal row: \"fill → order sent\" is the same fill → the first order it sends reaching the venue (both commits included).",
    'CPU is process CPU time over wall time during the ticking phase (100% = one core; PGlite runs in this process, PostgreSQL does not).',
    `The database stores run ${process.env.DB_SMALL === '1' ? 'both sizes' : `${large.toLocaleString('en')} bots only (DB_SMALL=1: both sizes)`}.`,
    "Peak RSS is the whole process's (PGlite's WASM heap included). Seed: bots and users inserted (bulk); setup: seed + runner start (lease, attach and reconcile every bot, first orders placed).",
    '',
    'GC: pauses during the ticking phase, count / total ms / longest ms.',
    '',
    '| store | scenario | bots | ticks | tick steps | p50 ms | p99 ms | max ms | fills | fill p50 ms | fill p99 ms | fill → order sent p50 / p99 ms | commands | trades | CPU | peak RSS MB | GC n / ms / max | seed / setup s |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...results.map(row),
    '',
    `Goals at ${large.toLocaleString('en')} bots: p99 tick → decision ≤ 5 ms, fills p99 ≤ 50 ms (stress), peak RSS ≤ 1 GB; ratios to the in-memory store in the same run.`,
    '',
    '| scenario | store | p99 tick → decision ms | ratio | fill p99 ms | ratio | peak RSS MB | ratio | goals |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...summary,
    ...(lanesTable.length
      ? [
          '',
          `Fill → order sent at ${large.toLocaleString('en')} bots (stress), the runner's writes in one FIFO queue (before issue 45 point 6) and with the send lane (journal rows an order waits for go first), one after the other in this run; goal p99 ≤ 250 ms. Stages (p99): fill → its step's write handed to the store (bot queue, decision, the paper save of the fill), then that write's commit. Load: 1-minute load average at each end.`,
          '',
          '| store | load | one queue p50 / p99 ms | send lane p50 / p99 ms | p99 ratio | → handed p99 ms | journal commit p99 ms | tick p99 ms | goal |',
          '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
          ...lanesTable,
        ]
      : []),
  ].join('\n');
  return [{ title: 'Grid Bot DCA runner: 1,000 and 10,000 bots', markdown }];
}
