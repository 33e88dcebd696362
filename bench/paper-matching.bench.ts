// Paper matching. (a) The matching core alone (RestingOrderBook) on a seeded stream of adds,
// cancels and price moves that cross, with 10,000 and with 100 (baseline) orders resting; (b) the
// same stream through nodejs-order-book (npm), a real exchange order book, in the same run; (c) the
// whole PaperVenue (balances, order records, saves to the in-memory store) as measured before the
// core existed, so the old orders/s figure stays comparable.
import { OrderBook as PeerBook, Side, type LimitOrderOptions } from 'nodejs-order-book';
import {
  MarketSimulator,
  MemoryPaperStore,
  PaperVenue,
  RestingOrderBook,
  SimulatedMarketData,
  mulberry32,
  type MatchSide,
} from '@bytx/venues';
import type { BenchSection } from './run';

const SYMBOL = 'ETH/USDT';
const PRICE = 3400;
const fmt = (x: number) => Math.round(x).toLocaleString('en-US');

// --- (a), (b): the order stream -----------------------------------------------------------------

const ADD = 0;
const CANCEL = 1;
const MOVE = 2;
/** Prices are whole ticks of 0.01 quote (ticks / 100: the same double every time). */
const TICKS_PER_UNIT = 100;

/**
 * A deterministic stream. The market price walks in ticks around PRICE (mean-reverting, so the book
 * stays around it). Resting buys sit 1..W ticks below the price and sells 1..W ticks above, W = half
 * the book size: about one order per price level per side, the case with the most levels (the
 * harder one for both books). Each op is one of: add a resting order (sizes 1..10), cancel a random
 * resting order (adds and cancels keep the book near its size), or (10 %) move the price 1..4 ticks,
 * crossing the orders between the old and the new price. Nothing added ever crosses when placed
 * (buys stay below the price, sells above), so the peer book only ever matches on a move.
 */
interface Stream {
  resting: number;
  setup: { id: string; side: MatchSide; price: number; size: number }[];
  kind: Uint8Array;
  side: Uint8Array; // 0 buy, 1 sell (for a move: the side that crosses, 0 = the price fell)
  price: Float64Array;
  size: Float64Array; // add: the order's size; move: the total size it crosses
  crossed: Uint32Array; // move: orders it crosses
  id: string[]; // add: the new id; cancel: the target; move: the peer's taker id
  /** Orders resting and their total size at the end. */
  endCount: number;
  endSize: number;
  fills: number;
}

export function makeStream(resting: number, ops: number, seed: number): Stream {
  const rand = mulberry32(seed);
  const width = Math.max(4, resting >> 1);
  const mid = PRICE * TICKS_PER_UNIT;
  let m = mid;
  // The generator follows the book with the core itself (checked against the peer after each run).
  const book = new RestingOrderBook<{
    id: string;
    symbol: string;
    side: MatchSide;
    price: number;
    size: number;
  }>();
  const live: string[] = [];
  const where = new Map<string, number>();
  const sizes = new Map<string, number>();
  const drop = (id: string) => {
    const i = where.get(id)!;
    const last = live.pop()!;
    if (last !== id) {
      live[i] = last;
      where.set(last, i);
    }
    where.delete(id);
  };
  const place = (id: string) => {
    const side: MatchSide = rand() < 0.5 ? 'buy' : 'sell';
    const off = 1 + Math.floor(rand() * width);
    const price = (side === 'buy' ? m - off : m + off) / TICKS_PER_UNIT;
    const size = 1 + Math.floor(rand() * 10);
    book.add({ id, symbol: SYMBOL, side, price, size });
    where.set(id, live.length);
    live.push(id);
    sizes.set(id, size);
    return { id, side, price, size };
  };
  const setup = [];
  for (let i = 0; i < resting; i++) setup.push(place(`s${i}`));
  const s: Stream = {
    resting,
    setup,
    kind: new Uint8Array(ops),
    side: new Uint8Array(ops),
    price: new Float64Array(ops),
    size: new Float64Array(ops),
    crossed: new Uint32Array(ops),
    id: new Array<string>(ops),
    endCount: 0,
    endSize: 0,
    fills: 0,
  };
  for (let i = 0; i < ops; i++) {
    const r = rand();
    if (r < 0.1) {
      // Mean reversion: the further above mid, the likelier a fall (within ±width ticks).
      const up = rand() < 0.5 - (m - mid) / (4 * width);
      m += (up ? 1 : -1) * (1 + Math.floor(rand() * 4));
      const price = m / TICKS_PER_UNIT;
      const crossed = book.cross(SYMBOL, price);
      let size = 0;
      for (const o of crossed) {
        size += o.size;
        drop(o.id);
      }
      s.kind[i] = MOVE;
      s.side[i] = up ? 1 : 0;
      s.price[i] = price;
      s.size[i] = size;
      s.crossed[i] = crossed.length;
      s.id[i] = `m${i}`;
      s.fills += crossed.length;
    } else if (live.length > 0 && rand() < 0.5 + (live.length - resting) / (2 * resting + 2)) {
      const id = live[Math.floor(rand() * live.length)]!;
      book.cancel(id);
      drop(id);
      s.kind[i] = CANCEL;
      s.id[i] = id;
    } else {
      const o = place(`a${i}`);
      s.kind[i] = ADD;
      s.side[i] = o.side === 'buy' ? 0 : 1;
      s.price[i] = o.price;
      s.size[i] = o.size;
      s.id[i] = o.id;
    }
  }
  s.endCount = live.length;
  for (const id of live) s.endSize += sizes.get(id)!;
  return s;
}

interface StreamRun {
  ops: number;
  ms: number;
  perSecond: number;
}

/** The core: add / cancel / cross, the order objects made in the loop as a caller would. */
export function runCore(s: Stream): StreamRun {
  const book = new RestingOrderBook();
  for (const o of s.setup) book.add({ id: o.id, symbol: SYMBOL, side: o.side, price: o.price });
  const { kind, side, price, id } = s;
  const n = kind.length;
  let fills = 0;
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const k = kind[i];
    if (k === ADD)
      book.add({ id: id[i]!, symbol: SYMBOL, side: side[i] === 0 ? 'buy' : 'sell', price: price[i]! });
    else if (k === CANCEL) book.cancel(id[i]!);
    else fills += book.cross(SYMBOL, price[i]!).length;
  }
  const ms = performance.now() - start;
  if (fills !== s.fills || book.size !== s.endCount) {
    throw new Error(`core: ${fills} fills and ${book.size} resting, expected ${s.fills} and ${s.endCount}`);
  }
  return { ops: n, ms, perSecond: (n / ms) * 1000 };
}

const IOC = 'IOC' as NonNullable<LimitOrderOptions['timeInForce']>;

/**
 * The peer: adds are GTC limit orders (they rest: nothing crosses when placed), cancels are cancels,
 * and a price move is an IOC limit order on the other side at the new price for the crossed size:
 * it trades against exactly the orders the core crosses, in the same price-time priority, and
 * leaves nothing on the book (with nothing crossed: size 1, it trades nothing and expires).
 */
export function runPeer(s: Stream): StreamRun {
  const book = new PeerBook();
  for (const o of s.setup) {
    book.limit({ id: o.id, side: o.side === 'buy' ? Side.BUY : Side.SELL, size: o.size, price: o.price });
  }
  const { kind, side, price, size, id } = s;
  const n = kind.length;
  let fills = 0;
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const k = kind[i];
    if (k === ADD) {
      book.limit({
        id: id[i]!,
        side: side[i] === 0 ? Side.BUY : Side.SELL,
        size: size[i]!,
        price: price[i]!,
      });
    } else if (k === CANCEL) {
      book.cancel(id[i]!);
    } else {
      const crossedSize = size[i]!;
      const r = book.limit({
        id: id[i]!,
        // The price fell (side 0): sell into the resting buys; it rose: buy the resting sells.
        side: side[i] === 0 ? Side.SELL : Side.BUY,
        size: crossedSize > 0 ? crossedSize : 1,
        price: price[i]!,
        timeInForce: IOC,
      });
      // `done` lists the makers filled and, when it filled completely, the taker itself.
      fills += crossedSize > 0 ? r.done.length - 1 : r.done.length;
    }
  }
  const ms = performance.now() - start;
  const [asks, bids] = book.depth();
  const left = [...asks, ...bids].reduce((sum, [, volume]) => sum + volume, 0);
  if (fills !== s.fills || left !== s.endSize) {
    throw new Error(`peer: ${fills} fills and ${left} size resting, expected ${s.fills} and ${s.endSize}`);
  }
  return { ops: n, ms, perSecond: (n / ms) * 1000 };
}

// --- (c): the whole PaperVenue, unchanged from the bench before the core ------------------------

async function runVenue(resting: number, maxIterations: number, maxMs: number) {
  const sim = new MarketSimulator({ seed: 1, startTime: Date.UTC(2025, 0, 15) });
  sim.setPrice('binance', SYMBOL, PRICE);
  const venue = new PaperVenue({
    accountId: `bench-${resting}`,
    feed: new SimulatedMarketData(sim, 'binance'),
    store: new MemoryPaperStore(),
    initialBalances: { USDT: 1e9 },
  });
  // Resting buys spread far below the market: never crossed during the run.
  for (let i = 0; i < resting; i++) {
    await venue.createOrder({
      symbol: SYMBOL,
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: 1000 + (i % 1500) + i / 100_000,
      clientOrderId: `rest-${i}`,
    });
  }
  if (venue.restingCount !== resting) throw new Error('setup failed');
  const start = performance.now();
  let n = 0;
  while (n < maxIterations && performance.now() - start < maxMs) {
    // Place a buy just under the market (rests), then move the price through it (fills).
    const o = await venue.createOrder({
      symbol: SYMBOL,
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: PRICE - 1,
      clientOrderId: `hot-${n}`,
    });
    if (o.status !== 'open') throw new Error('expected a resting order');
    sim.setPrice('binance', SYMBOL, PRICE - 2);
    sim.setPrice('binance', SYMBOL, PRICE);
    n++;
  }
  const ms = performance.now() - start;
  const open = await venue.fetchOpenOrders(SYMBOL);
  if (open.length !== resting) throw new Error(`expected ${resting} resting orders, found ${open.length}`);
  await venue.close();
  return { resting, n, ms, perSecond: (n / ms) * 1000 };
}

const bestOf = <T extends { perSecond: number }>(runs: T[]): T =>
  runs.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));

export default async function paperMatchingBench(): Promise<BenchSection[]> {
  // (a), (b): the same streams through both books. 200,000 ops each (the peer takes seconds at
  // 10,000 orders); a warm-up pass of each, then the engines alternate and the best run of each is
  // kept (the machine is shared).
  const OPS = 200_000;
  const small = makeStream(100, OPS, 7);
  const big = makeStream(10_000, OPS, 11);
  for (const s of [small, big]) {
    runCore(s);
    runPeer(s);
  }
  const results = [small, big].map((s) => {
    const core: StreamRun[] = [];
    const peer: StreamRun[] = [];
    // The core's runs are short (a tenth of a second): five of them, three of the peer's.
    for (let k = 0; k < 5; k++) {
      core.push(runCore(s));
      if (k < 3) peer.push(runPeer(s));
    }
    return { s, core: bestOf(core), peer: bestOf(peer) };
  });
  const [r100, r10k] = results as [(typeof results)[0], (typeof results)[0]];
  const count = (s: Stream, k: number) => s.kind.filter((x) => x === k).length;
  const coreGoal = r10k.core.perSecond >= 1_000_000;

  // (c): the whole venue, as before.
  await runVenue(100, 2_000, 1_000);
  await runVenue(10_000, 2_000, 1_000);
  const vBase = [await runVenue(100, 20_000, 2_000)];
  const vBig = [await runVenue(10_000, 20_000, 2_000)];
  vBase.push(await runVenue(100, 20_000, 2_000));
  vBig.push(await runVenue(10_000, 20_000, 2_000));
  const base = bestOf(vBase);
  const bigVenue = bestOf(vBig);

  const core = [
    'The matching core (`RestingOrderBook`, packages/venues/src/matching/order-book.ts: price levels',
    'with FIFO queues in a binary heap per symbol and side) alone, and `nodejs-order-book`',
    `${'(npm, 10.1)'} on the same seeded stream of ${fmt(OPS)} ops after the book is filled with 100 or`,
    '10,000 resting orders: adds of resting limit orders (buys 1..W ticks below the price, sells',
    'above, W = half the book: about one order per price level), cancels of random resting orders,',
    'and 10 % price moves of 1..4 ticks that cross the orders in between (the core: `cross(price)`;',
    'the peer: an IOC limit order on the other side at the new price for exactly the crossed size,',
    'which trades with the same orders in the same price-time priority). Both runs are checked',
    'against the stream: the same number of fills and the same orders left. A warm-up pass, then',
    'the two engines alternate (five runs of the core, three of the peer) and the best of each is kept.',
    '',
    '| resting orders | adds | cancels | moves (fills) | core ops/s | nodejs-order-book ops/s | core / peer |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      ({ s, core: c, peer: p }) =>
        `| ${fmt(s.resting)}${s.resting === 100 ? ' (baseline)' : ''} | ${fmt(count(s, ADD))} | ${fmt(count(s, CANCEL))} | ${fmt(count(s, MOVE))} (${fmt(s.fills)}) | ${fmt(c.perSecond)} | ${fmt(p.perSecond)} | ${(c.perSecond / p.perSecond).toFixed(2)}× |`,
    ),
    '',
    `Goal: ≥ 1,000,000 ops/s at 10,000 resting orders: **${fmt(r10k.core.perSecond)}** — ${coreGoal ? 'met' : 'NOT met'}.`,
    `Core at 10,000 / at 100 resting orders: **${(r10k.core.perSecond / r100.core.perSecond).toFixed(2)}×**;`,
    `nodejs-order-book at 10,000 / at 100: **${(r10k.peer.perSecond / r100.peer.perSecond).toFixed(2)}×**.`,
    '',
    "What the comparison means. The two do different jobs. nodejs-order-book is an exchange's",
    'matching engine: incoming orders trade against resting ones (limit, market, IOC/FOK, post-only,',
    'stop and OCO orders, self-trade prevention, partial fills with sizes, a trade report per call,',
    'optional journaling); its levels are a persistent red-black tree keyed by price plus a',
    'price-string map and a deque per level, and every call returns a response object. A paper',
    'exchange never matches its users against each other: it follows an external market, and a',
    'resting order fills whole when the market trades through its price. So the core keeps only',
    'what that needs (the best level of each side, the orders at or better than a price, O(1)',
    "cancels), returns the caller's own order objects and leaves sizes, fees and balances to",
    'PaperVenue. The stream is built so both do the same book work (the same orders rest, are',
    'cancelled and are taken, in the same order), but the peer also computes trades and sizes; the',
    'ratio says what following a price costs against running a matching engine on this stream, not',
    "that one library is better at the other's job.",
  ].join('\n');

  const venue = [
    'Each iteration places a limit buy on one paper account (it rests), then moves the simulated',
    'price through it so it fills (placed + matched = one order), with the in-memory PaperStore',
    '(every change saved). The other resting orders sit far below the price and are never crossed:',
    'the matching core only touches the crossed orders. At most 20,000 iterations or 2 s per run;',
    'after a warm-up of both sizes the sizes alternate and the best of two runs each is kept. Same',
    'method and figures as before the core was split out (then 27–30k orders/s): the cost here is the',
    "account's work (balances, order records, the save, the promise per call), not the book.",
    '',
    '| resting orders | iterations | time (ms) | orders/second |',
    '|---:|---:|---:|---:|',
    `| ${fmt(base.resting)} (baseline) | ${fmt(base.n)} | ${base.ms.toFixed(0)} | ${fmt(base.perSecond)} |`,
    `| ${fmt(bigVenue.resting)} | ${fmt(bigVenue.n)} | ${bigVenue.ms.toFixed(0)} | ${fmt(bigVenue.perSecond)} |`,
    '',
    `Ratio 10,000 / 100: **${(bigVenue.perSecond / base.perSecond).toFixed(2)}×** the baseline throughput; the core alone at`,
    `10,000 resting orders is **${(r10k.core.perSecond / bigVenue.perSecond).toFixed(0)}×** the whole venue's orders/s (an order there`,
    'is an add and a cross in the core, plus the account).',
  ].join('\n');
  return [
    { title: 'Paper matching core vs nodejs-order-book', markdown: core },
    { title: 'Paper matching throughput', markdown: venue },
  ];
}
