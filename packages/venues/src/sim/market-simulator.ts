// MarketSimulator: the walk of the simulated market (base prices in USD, per-pair wobble and
// dislocations), its listeners, snapshot and restore. Its fixed data is in config.ts, the pairs,
// swaps and books in pairs.ts, the candles in candles.ts, the randomness in random.ts.
import { VenueUnavailableError, InvalidOrderError } from '../errors';
import { roundToStep } from '../precision';
import type { Candle, Market, OrderBook, Ticker, Timeframe } from '../types';
import { TIMEFRAMES } from '../types';
import { candleHistory, updateCandles, type CandleSeriesSnapshot } from './candles';
import {
  DAILY_VOL,
  DISLOCATION_CAP,
  DISLOCATION_EPSILON,
  DISLOCATION_MAX,
  DISLOCATION_MIN,
  QUOTE_USD,
  SIM_DISLOCATION_HALF_LIFE_MS,
  SIM_DISLOCATION_PER_HOUR,
  SIM_EXCHANGES,
  SIM_MAX_PRICE,
  SIM_START_PRICES,
  simulatedSymbols,
} from './config';
import {
  pairBook,
  spotMarket,
  swapMarkets,
  type ListingListener,
  type Pair,
  type PriceEvent,
  type PriceListener,
  type SwapPair,
} from './pairs';
import { gaussian, hash32, mulberry32 } from './random';

/**
 * The simulated market (MARKET_DATA=simulated): one seeded random walk per base asset in USD,
 * every spot pair of the spec on every exchange key, small fixed per-exchange offsets plus a
 * mean-reverting per-exchange wobble plus dislocations (jumps at random times that decay back, so
 * cross-exchange spreads open and close), each exchange's own spot fees and minimum order value,
 * candles for every timeframe with history generated backwards on first use, a 10-level book around
 * the price. Deterministic: the same seed and the same sequence of `advance` calls give the same prices.
 */

/**
 * Everything the random walk needs to continue exactly where it was (candles are kept apart, see
 * `candleSeries`): a restart restores it, so the price series shows no jump and a held price holds.
 */
export interface SimulatorSnapshot {
  v: 1;
  seed: number;
  now: number;
  lastHour: number;
  rng: number;
  usd: Record<string, number>;
  hourly: Record<string, number[]>;
  /**
   * `exchange|symbol` → [wobble, held price or null, delisted (1) or 0, dislocation, time of the next
   * dislocation (ms)]; older snapshots have only the first two or three.
   */
  pairs: Record<
    string,
    | [number, number | null]
    | [number, number | null, number]
    | [number, number | null, number, number, number]
  >;
  /** State of the dislocations' generator (absent in older snapshots). */
  jumpRng?: number;
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** How long (simulated ms) an unchanged price goes unsent before it is sent again to its subscribers. */
const RESEND_MS = 1_000;

export interface MarketSimulatorOptions {
  seed?: number;
  /** Clock at start (ms); defaults to Date.now(). */
  startTime?: number;
  /** Candles of history generated backwards per timeframe on first use (default 300). */
  historyCandles?: number;
  /** Candles kept per timeframe series (default 1000). */
  maxCandles?: number;
}

export class MarketSimulator {
  readonly exchanges: readonly string[] = SIM_EXCHANGES;
  readonly symbols: readonly string[] = simulatedSymbols();
  /** The swap symbols listed on every exchange (`X/USDT:USDT`, `X/USDC:USDC`, `X/USD:X`). */
  readonly swapSymbols: readonly string[];
  /** State of the walk's mulberry32 generator (persisted with `snapshot`). */
  private rngState: number;
  private readonly rand = (): number => {
    this.rngState = (this.rngState + 0x6d2b79f5) >>> 0;
    let t = this.rngState;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  /** State of the dislocations' generator, apart from the walk's (persisted with `snapshot`). */
  private jumpRngState: number;
  private readonly jumpRand = (): number => {
    this.jumpRngState = (this.jumpRngState + 0x6d2b79f5) >>> 0;
    let t = this.jumpRngState;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  private readonly seed: number;
  private readonly historyCandles: number;
  private readonly maxCandles: number;
  /** Base asset price in USD, per base. */
  private readonly usd = new Map<string, number>();
  /** Hourly USD samples of each base (for the 24 h change): index 0 = 24 h ago. */
  private readonly hourly = new Map<string, number[]>();
  private lastHour: number;
  private readonly pairs = new Map<string, Pair>();
  private readonly swaps = new Map<string, SwapPair>();
  private readonly byExchange = new Map<string, Pair[]>();
  private readonly allListeners = new Set<PriceListener>();
  private readonly listingListeners = new Set<ListingListener>();
  private now: number;

  constructor(opts: MarketSimulatorOptions = {}) {
    this.seed = opts.seed ?? 20250101;
    this.rngState = this.seed >>> 0;
    this.jumpRngState = hash32(`${this.seed}:dislocations`);
    this.now = opts.startTime ?? Date.now();
    this.historyCandles = opts.historyCandles ?? 300;
    this.maxCandles = Math.max(opts.maxCandles ?? 1000, this.historyCandles + 1);
    this.lastHour = Math.floor(this.now / 3_600_000);

    const bases = [...new Set(this.symbols.map((s) => s.split('/')[0] ?? ''))];
    for (const base of bases) {
      const start = SIM_START_PRICES[base] ?? 1;
      this.usd.set(base, start);
      // 24 hourly samples generated backwards so the first 24 h change is realistic.
      const r = mulberry32(hash32(`${this.seed}:24h:${base}`));
      const vol = (DAILY_VOL[base] ?? 0.045) / Math.sqrt(24);
      const samples = [start];
      for (let i = 0; i < 24; i++) samples.unshift((samples[0] ?? start) * Math.exp(-vol * gaussian(r)));
      this.hourly.set(base, samples);
    }
    let index = 0;
    for (const exchange of this.exchanges) {
      const list: Pair[] = [];
      for (const symbol of this.symbols) {
        const [base = '', quote = ''] = symbol.split('/');
        const r = mulberry32(hash32(`${this.seed}:offset:${exchange}:${symbol}`));
        // ±0.02%..0.1%, sign random: small, so that a spread beyond the fees needs a dislocation.
        const offset = (0.0002 + r() * 0.0008) * (r() < 0.5 ? -1 : 1);
        const market = spotMarket(exchange, symbol, base, quote);
        const pair: Pair = {
          exchange,
          symbol,
          base,
          quote,
          index: index++,
          offset,
          wobble: 0,
          jump: 0,
          nextJump: this.now + this.jumpInterval(),
          held: null,
          price: 0,
          market,
          series: new Map(),
          listeners: new Set(),
          sentAt: this.now,
          swaps: [],
        };
        pair.price = this.computePrice(pair);
        this.pairs.set(`${exchange}|${symbol}`, pair);
        list.push(pair);
      }
      this.byExchange.set(exchange, list);
      for (const pair of list) this.addSwaps(pair);
    }
    this.swapSymbols = [...new Set([...this.swaps.values()].map((x) => x.symbol))];
  }

  /** The swaps following a spot pair (markets in pairs.ts). */
  private addSwaps(p: Pair): void {
    const markets = swapMarkets(p);
    for (const market of markets) {
      const swap: SwapPair = {
        exchange: p.exchange,
        symbol: market.symbol,
        underlying: p,
        market,
        listeners: new Set(),
      };
      p.swaps.push(swap);
      this.swaps.set(`${p.exchange}|${market.symbol}`, swap);
    }
  }

  /** The simulator's clock (the time of the last advance). */
  get time(): number {
    return this.now;
  }

  hasExchange(exchange: string): boolean {
    return this.byExchange.has(exchange);
  }

  hasSymbol(exchange: string, symbol: string): boolean {
    return this.pairs.has(`${exchange}|${symbol}`) || this.swaps.has(`${exchange}|${symbol}`);
  }

  /** The swap of this key, or null for a spot pair or an unknown symbol. */
  private swap(exchange: string, symbol: string): SwapPair | null {
    return this.swaps.get(`${exchange}|${symbol}`) ?? null;
  }

  /** A swap's market as it is now (listed while its spot pair is). */
  private swapMarket(s: SwapPair): Market {
    return { ...s.market, active: s.underlying.market.active };
  }

  /** The spot pair of a symbol; for a swap symbol, the pair its price follows. */
  private pair(exchange: string, symbol: string): Pair {
    const p = this.pairs.get(`${exchange}|${symbol}`) ?? this.swap(exchange, symbol)?.underlying;
    if (!p) {
      if (!this.byExchange.has(exchange)) {
        throw new VenueUnavailableError(`Unknown exchange '${exchange}' in the simulated market`, exchange);
      }
      throw new InvalidOrderError(`${exchange} does not list ${symbol}`, exchange, 'bad_symbol');
    }
    return p;
  }

  /** The pair's price now; never non-finite or ≤ 0 (then the last good price stays). */
  private computePrice(p: Pair): number {
    if (p.held !== null) return p.held;
    const usd = this.usd.get(p.base) ?? 1;
    const raw = (usd / (QUOTE_USD[p.quote] ?? 1)) * (1 + p.offset + p.wobble + p.jump);
    const price = Math.max(roundToStep(raw, p.market.priceStep), p.market.priceStep);
    return Number.isFinite(price) && price > 0 ? price : p.price;
  }

  /** The spot markets of an exchange; with `{ swaps: true }` its swap markets too. */
  markets(exchange: string, opts: { swaps?: boolean } = {}): Record<string, Market> {
    const list = this.byExchange.get(exchange);
    if (!list)
      throw new VenueUnavailableError(`Unknown exchange '${exchange}' in the simulated market`, exchange);
    const out: Record<string, Market> = {};
    for (const p of list) out[p.symbol] = { ...p.market };
    if (opts.swaps) for (const p of list) for (const s of p.swaps) out[s.symbol] = this.swapMarket(s);
    return out;
  }

  market(exchange: string, symbol: string): Market {
    const s = this.swap(exchange, symbol);
    return s ? this.swapMarket(s) : { ...this.pair(exchange, symbol).market };
  }

  price(exchange: string, symbol: string): number {
    return this.pair(exchange, symbol).price;
  }

  /**
   * Sets a price that then holds (no random walk for this pair) until changed or released. On a swap
   * symbol it sets the spot pair the swap follows (so the spot price and every swap of it move).
   */
  setPrice(exchange: string, symbol: string, price: number): number {
    if (!(price > 0) || !Number.isFinite(price) || price > SIM_MAX_PRICE) {
      throw new InvalidOrderError(
        `price must be a positive number of at most ${SIM_MAX_PRICE}`,
        exchange,
        'bad_price',
      );
    }
    const p = this.pair(exchange, symbol);
    if (price < p.market.priceStep) {
      throw new InvalidOrderError(
        `price must be at least the tick size ${p.market.priceStep}`,
        exchange,
        'bad_price',
      );
    }
    p.held = roundToStep(price, p.market.priceStep);
    this.update(p, p.held);
    return p.held;
  }

  /**
   * Delists or relists a pair (simulator control): a delisted pair stays in `markets` with
   * `active: false`, its price keeps moving, and listing listeners hear the change.
   */
  setListed(exchange: string, symbol: string, listed: boolean): void {
    const p = this.pair(exchange, symbol);
    if (p.market.active === listed) return;
    p.market.active = listed;
    for (const l of this.listingListeners) l({ exchange, symbol, listed });
  }

  isListed(exchange: string, symbol: string): boolean {
    const p = this.pairs.get(`${exchange}|${symbol}`) ?? this.swap(exchange, symbol)?.underlying;
    return p?.market.active ?? false;
  }

  /** Listing changes (setListed). Returns unsubscribe. */
  onListing(listener: ListingListener): () => void {
    this.listingListeners.add(listener);
    return () => this.listingListeners.delete(listener);
  }

  /** Lets a held pair follow the random walk again. */
  releasePrice(exchange: string, symbol: string): void {
    const p = this.pair(exchange, symbol);
    p.held = null;
    this.update(p, this.computePrice(p));
  }

  /** Milliseconds to a pair's next dislocation (exponential: a Poisson process), at least 1. */
  private jumpInterval(): number {
    const mean = 3_600_000 / SIM_DISLOCATION_PER_HOUR;
    return Math.max(1, Math.round(-Math.log(1 - this.jumpRand()) * mean));
  }

  /**
   * Decays a pair's dislocation over `elapsedMs` and adds the jumps due up to `nowMs`, each decayed
   * from its own time (the draws come from the dislocations' generator: the walk's is untouched).
   */
  private stepDislocation(p: Pair, elapsedMs: number, nowMs: number): void {
    const h = SIM_DISLOCATION_HALF_LIFE_MS;
    let jump = p.jump * 0.5 ** (elapsedMs / h);
    // Jumps older than 40 half-lives have vanished: skip them (the process has no memory).
    if (p.nextJump < nowMs - 40 * h) p.nextJump = nowMs - 40 * h;
    while (p.nextJump <= nowMs) {
      const size = DISLOCATION_MIN + this.jumpRand() * (DISLOCATION_MAX - DISLOCATION_MIN);
      const sign = this.jumpRand() < 0.5 ? -1 : 1;
      jump += sign * size * 0.5 ** ((nowMs - p.nextJump) / h);
      p.nextJump += this.jumpInterval();
    }
    jump = Math.max(-DISLOCATION_CAP, Math.min(DISLOCATION_CAP, jump));
    p.jump = Number.isFinite(jump) && Math.abs(jump) >= DISLOCATION_EPSILON ? jump : 0;
  }

  /** Steps every random walk to `nowMs` (one step; the size scales with the elapsed time). */
  advance(nowMs: number = Date.now()): void {
    for (const step of this.beginAdvance(nowMs)) step();
  }

  /**
   * `advance` in slices, for a caller that spreads a tick over several turns of its event loop (the
   * server: ~1,000 pairs and their listeners in one go held every request for several ms): steps the
   * base prices to `nowMs` now and returns one step per exchange that moves its pairs. Run them in
   * order, all of them, before the next call: the walk then draws its random numbers in the same
   * order as `advance`, so a seed gives the same prices either way. Until its step runs, an
   * exchange's pairs keep the prices of the last tick. Empty when no time has passed.
   */
  beginAdvance(nowMs: number = Date.now()): (() => void)[] {
    const elapsedMs = Math.max(nowMs - this.now, 0);
    const dt = Math.min(elapsedMs, 3_600_000) / 1000;
    if (dt <= 0) return [];
    this.now = nowMs;
    for (const [base, usd] of this.usd) {
      const sigma = ((DAILY_VOL[base] ?? 0.045) / Math.sqrt(86_400)) * Math.sqrt(dt);
      const next = usd * Math.exp(sigma * gaussian(this.rand) - (sigma * sigma) / 2);
      // A walk that would leave the finite positive numbers stays where it is.
      if (Number.isFinite(next) && next > 0) this.usd.set(base, next);
    }
    const hour = Math.floor(nowMs / 3_600_000);
    if (hour !== this.lastHour) {
      for (const [base, samples] of this.hourly) {
        for (let h = this.lastHour; h < hour && h < this.lastHour + 25; h++) {
          samples.shift();
          samples.push(this.usd.get(base) ?? 0);
        }
      }
      this.lastHour = hour;
    }
    const keep = Math.exp(-dt / 120); // wobble half-life ~1.4 min
    const wobbleSigma = 0.0004 * Math.sqrt(1 - keep * keep);
    return [...this.byExchange.values()].map((list) => () => {
      for (const p of list) {
        const wobble = p.wobble * keep + wobbleSigma * gaussian(this.rand);
        if (Number.isFinite(wobble)) p.wobble = Math.max(-0.004, Math.min(0.004, wobble));
        this.stepDislocation(p, elapsedMs, nowMs);
        if (p.held === null) this.update(p, this.computePrice(p));
        else {
          updateCandles(p.series, p.base, p.price, this.now, this.maxCandles);
          this.resend(p);
        }
      }
    });
  }

  /**
   * A price that has not changed for RESEND_MS is sent again to the pair's subscribers, as an
   * exchange's ticker stream keeps sending while the last price holds: a strategy that decides on
   * fresh books (arbitrage) keeps deciding while a price is held by the control.
   */
  private resend(p: Pair): void {
    if (this.now - p.sentAt < RESEND_MS) return;
    p.sentAt = this.now;
    if (p.listeners.size === 0 && p.swaps.every((s) => s.listeners.size === 0)) return;
    const ev: PriceEvent = { exchange: p.exchange, symbol: p.symbol, price: p.price, timestamp: this.now };
    for (const l of p.listeners) l(ev);
    for (const s of p.swaps) {
      if (s.listeners.size === 0) continue;
      const sev: PriceEvent = { ...ev, symbol: s.symbol };
      for (const l of s.listeners) l(sev);
    }
  }

  private update(p: Pair, price: number): void {
    const changed = price !== p.price;
    p.price = price;
    updateCandles(p.series, p.base, price, this.now, this.maxCandles);
    if (!changed) {
      this.resend(p);
      return;
    }
    p.sentAt = this.now;
    const ev: PriceEvent = { exchange: p.exchange, symbol: p.symbol, price, timestamp: this.now };
    for (const l of p.listeners) l(ev);
    for (const l of this.allListeners) l(ev);
    // The swaps' marks follow, after the spot pair's listeners.
    for (const s of p.swaps) {
      if (s.listeners.size === 0 && this.allListeners.size === 0) continue;
      const sev: PriceEvent = { ...ev, symbol: s.symbol };
      for (const l of s.listeners) l(sev);
      for (const l of this.allListeners) l(sev);
    }
  }

  /** The walk's whole state, to persist (small: a few numbers per pair). */
  snapshot(): SimulatorSnapshot {
    const pairs: SimulatorSnapshot['pairs'] = {};
    for (const [key, p] of this.pairs)
      pairs[key] = [p.wobble, p.held, p.market.active ? 0 : 1, p.jump, p.nextJump];
    return {
      v: 1,
      seed: this.seed,
      now: this.now,
      lastHour: this.lastHour,
      rng: this.rngState,
      jumpRng: this.jumpRngState,
      usd: Object.fromEntries(this.usd),
      hourly: Object.fromEntries([...this.hourly].map(([b, v]) => [b, [...v]])),
      pairs,
    };
  }

  /**
   * Continues from a snapshot (before anyone listens: no price events are sent). Values that are not
   * finite, unknown pairs and bases are ignored, so a damaged or older snapshot can only leave a
   * pair on its seed state, never on a bad price. Returns false when the snapshot is not usable.
   */
  restore(snap: unknown): boolean {
    const s = snap as Partial<SimulatorSnapshot> | null;
    if (!s || s.v !== 1 || s.seed !== this.seed || !finite(s.now) || !finite(s.rng)) return false;
    this.now = s.now;
    this.lastHour = finite(s.lastHour) ? s.lastHour : Math.floor(s.now / 3_600_000);
    this.rngState = s.rng >>> 0;
    if (finite(s.jumpRng)) this.jumpRngState = s.jumpRng >>> 0;
    for (const [base, usd] of Object.entries(s.usd ?? {})) {
      if (this.usd.has(base) && finite(usd) && usd > 0) this.usd.set(base, usd);
    }
    for (const [base, samples] of Object.entries(s.hourly ?? {})) {
      if (this.hourly.has(base) && Array.isArray(samples) && samples.every((x) => finite(x) && x > 0)) {
        this.hourly.set(base, [...samples]);
      }
    }
    for (const [key, value] of Object.entries(s.pairs ?? {})) {
      const p = this.pairs.get(key);
      if (!p || !Array.isArray(value)) continue;
      const [wobble, held, delisted, jump, nextJump] = value as unknown[];
      if (finite(wobble)) p.wobble = Math.max(-0.004, Math.min(0.004, wobble));
      // An older snapshot has no dislocation: none now, the next one drawn from the snapshot's time.
      p.jump = finite(jump) ? Math.max(-DISLOCATION_CAP, Math.min(DISLOCATION_CAP, jump)) : 0;
      p.nextJump =
        finite(nextJump) && nextJump > s.now && nextJump <= s.now + 86_400_000
          ? nextJump
          : s.now + this.jumpInterval();
      p.market.active = delisted !== 1;
      p.held =
        finite(held) && held >= p.market.priceStep && held <= SIM_MAX_PRICE
          ? roundToStep(held, p.market.priceStep)
          : null;
      p.price = this.computePrice(p);
    }
    return true;
  }

  /** Every candle series built so far (the ones someone asked for), newest candles last. */
  candleSeries(): CandleSeriesSnapshot[] {
    const out: CandleSeriesSnapshot[] = [];
    for (const p of this.pairs.values()) {
      for (const [timeframe, s] of p.series) {
        out.push({ exchange: p.exchange, symbol: p.symbol, timeframe, candles: s.candles });
      }
    }
    return out;
  }

  /** Puts back persisted candle series (before use); bad candles are dropped, order is by time. */
  restoreCandles(series: readonly CandleSeriesSnapshot[]): void {
    for (const s of series) {
      const p = this.pairs.get(`${s.exchange}|${s.symbol}`);
      if (!p || !TIMEFRAMES.includes(s.timeframe)) continue;
      const candles = s.candles
        .filter((c) => Array.isArray(c) && c.length === 6 && c.every(finite))
        .map((c) => [...c] as Candle)
        .sort((a, b) => a[0] - b[0])
        .slice(-this.maxCandles);
      if (candles.length > 0) p.series.set(s.timeframe, { candles });
    }
  }

  /** Every price change of every pair. Returns unsubscribe. */
  onPrice(listener: PriceListener): () => void {
    this.allListeners.add(listener);
    return () => this.allListeners.delete(listener);
  }

  /** Price changes of one pair only (cheap with many listeners). Returns unsubscribe. */
  onPairPrice(exchange: string, symbol: string, listener: PriceListener): () => void {
    const s = this.swap(exchange, symbol);
    if (s) {
      s.listeners.add(listener);
      return () => s.listeners.delete(listener);
    }
    const p = this.pair(exchange, symbol);
    p.listeners.add(listener);
    return () => p.listeners.delete(listener);
  }

  private change24h(p: Pair): number | null {
    const ref = this.hourly.get(p.base)?.[0];
    if (!ref) return null;
    const refPrice = (ref / (QUOTE_USD[p.quote] ?? 1)) * (1 + p.offset);
    return Number((((p.price - refPrice) / refPrice) * 100).toFixed(4));
  }

  ticker(exchange: string, symbol: string): Ticker {
    const p = this.pair(exchange, symbol);
    const book = this.orderBook(exchange, symbol, 1);
    return {
      symbol,
      last: p.price,
      bid: book.bids[0]?.[0] ?? null,
      ask: book.asks[0]?.[0] ?? null,
      percentage: this.change24h(p),
      timestamp: this.now,
    };
  }

  /** A book of `limit` levels (at most 10) per side around the last price (pairs.ts `pairBook`). */
  orderBook(exchange: string, symbol: string, limit = 10): OrderBook {
    const p = this.pair(exchange, symbol);
    return pairBook(this.seed, exchange, symbol, p, this.swap(exchange, symbol), this.now, limit);
  }

  /** Candles of one timeframe, oldest first; history is generated backwards on first use. */
  candles(exchange: string, symbol: string, timeframe: Timeframe, since?: number, limit = 500): Candle[] {
    if (!TIMEFRAMES.includes(timeframe)) {
      throw new InvalidOrderError(`Unknown timeframe '${String(timeframe)}'`, exchange, 'other');
    }
    const p = this.pair(exchange, symbol);
    let s = p.series.get(timeframe);
    if (!s) {
      s = { candles: this.history(p, timeframe) };
      p.series.set(timeframe, s);
    }
    let list = s.candles;
    if (since !== undefined) list = list.filter((c) => c[0] >= since);
    const n = Math.max(1, Math.min(Math.floor(limit), this.maxCandles));
    return list.slice(-n).map((c) => [...c] as Candle);
  }

  private history(p: Pair, tf: Timeframe): Candle[] {
    const of = {
      seed: this.seed,
      exchange: p.exchange,
      symbol: p.symbol,
      base: p.base,
      price: p.price,
      priceStep: p.market.priceStep,
    };
    return candleHistory(of, tf, this.now, this.historyCandles);
  }
}
