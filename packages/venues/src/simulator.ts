/**
 * Why this file is ~1,000 lines: the simulated market (price paths, candles, books, swaps, funding and the
 * cross-exchange dislocations) keeps one state per exchange and pair that every part reads on each tick.
 * Splitting it by concern (paths, candles, books, derivatives) is part of issue 39 point 4 (open).
 */
import { EXCHANGES, SPOT_BASES, SPOT_QUOTES, TICKER_ASSETS, type ExchangeKey } from '@bytx/contract';
import { VenueUnavailableError, InvalidOrderError } from './errors';
import {
  MARGIN_MAX_LEVERAGE,
  SWAP_MAKER_FEE,
  SWAP_TAKER_FEE,
  marketSymbol,
  swapMaxLeverage,
} from './derivatives';
import { roundToStep } from './precision';
import type { Candle, Market, MarketDataSource, OrderBook, Ticker, Timeframe } from './types';
import { TIMEFRAMES } from './types';

/**
 * The simulated market (MARKET_DATA=simulated): one seeded random walk per base asset in USD,
 * every spot pair of the spec on every exchange key, small fixed per-exchange offsets plus a
 * mean-reverting per-exchange wobble plus dislocations (jumps at random times that decay back, so
 * cross-exchange spreads open and close), each exchange's own spot fees and minimum order value,
 * candles for every timeframe with history generated backwards on first use, a 10-level book around
 * the price. Deterministic: the same seed and the same sequence of `advance` calls give the same prices.
 */

/** Start prices in USD (early 2025 levels); BYTX is the platform token. */
export const SIM_START_PRICES: Readonly<Record<string, number>> = {
  BTC: 95_000,
  ETH: 3_400,
  BYTX: 0.002,
  LTC: 105,
  BNB: 690,
  XRP: 2.3,
  SOL: 190,
  DOT: 6.8,
  AVAX: 36,
  ADA: 0.95,
  TRX: 0.25,
  LINK: 22,
  BCH: 440,
  ARB: 0.75,
  ATOM: 6.5,
  UNI: 13,
  HBAR: 0.28,
  SUI: 4.2,
  ALGO: 0.38,
  FIL: 5.2,
  THETA: 2.1,
  OP: 1.9,
  SAND: 0.55,
  WLD: 2.3,
  DOGE: 0.36,
};

/** Daily volatility (fraction) per base; others use 0.045. */
const DAILY_VOL: Readonly<Record<string, number>> = { BTC: 0.025, ETH: 0.032, BNB: 0.028, BYTX: 0.06 };

/** Price of the quote assets in USD. */
const QUOTE_USD: Readonly<Record<string, number>> = { USDT: 1, USDC: 1.0001 };

/** Every spot pair of the spec: bases × USDT/USDC, plus the ticker pairs (DOGE/USDT). */
export function simulatedSymbols(): string[] {
  const out = new Set<string>();
  for (const b of SPOT_BASES) for (const q of SPOT_QUOTES) out.add(`${b}/${q}`);
  for (const a of TICKER_ASSETS) out.add(`${a.symbol.slice(0, -4)}/USDT`);
  return [...out];
}

export const SIM_EXCHANGES: readonly string[] = EXCHANGES.map((e) => e.key);

/** The highest price the simulator takes or produces (the platform's documented price limit). */
export const SIM_MAX_PRICE = 1e9;

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

/** One candle series of one pair, as `candles` returns it. */
export interface CandleSeriesSnapshot {
  exchange: string;
  symbol: string;
  timeframe: Timeframe;
  candles: Candle[];
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** How long (simulated ms) an unchanged price goes unsent before it is sent again to its subscribers. */
const RESEND_MS = 1_000;

/** Binance's spot fee (taker and maker), 0.1%: the fallback of `simSpotFees`. */
export const SIM_FEE = 0.001;
/** Minimum order value in quote units, like Binance's 5 USDT NOTIONAL filter: the fallback of `simSpotFees`. */
export const SIM_MIN_COST = 5;

/** Spot fees (fractions) and minimum order value (quote units) of one simulated exchange. */
export interface SimSpotFees {
  taker: number;
  maker: number;
  minCost: number;
}

/**
 * Each exchange's base-tier (no VIP, no token discount) spot fees and its usual minimum order value on
 * USDT pairs, as the exchanges publish them (fee pages and market-info APIs, checked 2025). The
 * simulated market charges these on spot pairs; swaps keep SWAP_TAKER_FEE / SWAP_MAKER_FEE.
 * Where an exchange sets a minimum in base units only, `minCost` is what that is worth on the major
 * pairs (the simulator's `minAmount`, one amount step worth ≤ 1 USD, applies as well).
 * - binance: binance.com/en/fee/schedule 0.1/0.1 %; exchangeInfo NOTIONAL minNotional 5 (kept exactly:
 *   tests and docs work with it).
 * - bybit (and its testnet): Bybit help "Spot trading fees" non-VIP 0.1/0.1 %; v5 instruments-info
 *   lotSizeFilter.minOrderAmt 5 on BTCUSDT/ETHUSDT.
 * - coinbaseexchange: Coinbase Exchange fee tier $0–10K taker 0.60 %, maker 0.40 %; products'
 *   min_market_funds 1.
 * - okx: okx.com/fees Regular Lv1 spot taker 0.10 %, maker 0.08 %; no notional filter, minSz ≈ 1 USD.
 * - bitget: bitget.com/fee spot 0.1/0.1 %; spot symbols minTradeUSDT 1.
 * - mexc: MEXC Learn "spot trading fees" (2025) maker 0 %, taker 0.05 %; minimum order 1 USDT.
 * - kucoin: KuCoin fee level LV0 spot 0.1/0.1 %; symbols minFunds 0.1.
 * - bingx: BingX spot 0.1/0.1 %; minimum order 2 USDT.
 * - kraken: Kraken Pro $0–10K tier taker 0.40 %, maker 0.25 %; AssetPairs costmin 0.5.
 * - bitfinex: bitfinex.com/fees taker 0.20 %, maker 0.10 %; minimum order size ≈ 5 USD in base.
 * - gateio: gate.com/fee VIP 0 spot 0.1/0.1 %; currency_pairs min_quote_amount 3.
 * - phemex: Phemex spot 0.1/0.1 %; minimum order value 1 USDT.
 * - bitstamp: bitstamp.net/fee-schedule $0–1K tier taker 0.40 %, maker 0.30 %; minimum order 10 USD.
 * - poloniex: Poloniex spot VIP0 taker 0.155 %, maker 0.145 %; minimum amount 1 USDT.
 * - lbank: LBank spot 0.1/0.1 %; minimum order ≈ 1 USDT.
 * - hitbtc: HitBTC starter tier 0.09/0.09 % (ccxt 4.5 `fees.trading`); minimum ≈ 1 USD.
 * - bittrex, zb, ascendex (closed; the last published schedules): Bittrex 0.35/0.35 % and 10 USD;
 *   ZB 0.2/0.2 % and 1 USD; AscendEX 0.1/0.1 % and 5 USDT.
 */
export const SIM_SPOT_FEES: Readonly<Record<ExchangeKey, SimSpotFees>> = {
  binance: { taker: SIM_FEE, maker: SIM_FEE, minCost: SIM_MIN_COST },
  bybit: { taker: 0.001, maker: 0.001, minCost: 5 },
  bybit_testnet: { taker: 0.001, maker: 0.001, minCost: 5 },
  coinbaseexchange: { taker: 0.006, maker: 0.004, minCost: 1 },
  okx: { taker: 0.001, maker: 0.0008, minCost: 1 },
  bitget: { taker: 0.001, maker: 0.001, minCost: 1 },
  mexc: { taker: 0.0005, maker: 0, minCost: 1 },
  kucoin: { taker: 0.001, maker: 0.001, minCost: 0.1 },
  bingx: { taker: 0.001, maker: 0.001, minCost: 2 },
  kraken: { taker: 0.004, maker: 0.0025, minCost: 0.5 },
  bitfinex: { taker: 0.002, maker: 0.001, minCost: 5 },
  gateio: { taker: 0.001, maker: 0.001, minCost: 3 },
  phemex: { taker: 0.001, maker: 0.001, minCost: 1 },
  bitstamp: { taker: 0.004, maker: 0.003, minCost: 10 },
  bittrex: { taker: 0.0035, maker: 0.0035, minCost: 10 },
  poloniex: { taker: 0.00155, maker: 0.00145, minCost: 1 },
  lbank: { taker: 0.001, maker: 0.001, minCost: 1 },
  zb: { taker: 0.002, maker: 0.002, minCost: 1 },
  hitbtc: { taker: 0.0009, maker: 0.0009, minCost: 1 },
  ascendex: { taker: 0.001, maker: 0.001, minCost: 5 },
};

/** The spot fees and minimum order value of an exchange key (unknown keys: Binance's). */
export function simSpotFees(exchange: string): SimSpotFees {
  return (
    (SIM_SPOT_FEES as Readonly<Record<string, SimSpotFees>>)[exchange] ?? {
      taker: SIM_FEE,
      maker: SIM_FEE,
      minCost: SIM_MIN_COST,
    }
  );
}

/**
 * Dislocations (moving offsets, so cross-exchange opportunities appear and vanish): on each pair of
 * each exchange, at Poisson times (`SIM_DISLOCATION_PER_HOUR` a pair), the price jumps away from the
 * others by 0.3–0.8 % (random sign) and the jump decays back with a half-life of
 * `SIM_DISLOCATION_HALF_LIFE_MS`. Jumps add up while they overlap (bounded to ±2 %).
 */
export const SIM_DISLOCATION_PER_HOUR = 3;
export const SIM_DISLOCATION_HALF_LIFE_MS = 30_000;
const DISLOCATION_MIN = 0.003;
const DISLOCATION_MAX = 0.008;
const DISLOCATION_CAP = 0.02;
/** Below this a decayed dislocation is 0 (keeps the snapshot small). */
const DISLOCATION_EPSILON = 1e-7;

export interface PriceEvent {
  exchange: string;
  symbol: string;
  price: number;
  timestamp: number;
}
export type PriceListener = (e: PriceEvent) => void;
export interface ListingEvent {
  exchange: string;
  symbol: string;
  listed: boolean;
}
export type ListingListener = (e: ListingEvent) => void;

export interface MarketSimulatorOptions {
  seed?: number;
  /** Clock at start (ms); defaults to Date.now(). */
  startTime?: number;
  /** Candles of history generated backwards per timeframe on first use (default 300). */
  historyCandles?: number;
  /** Candles kept per timeframe series (default 1000). */
  maxCandles?: number;
}

/** mulberry32: a small, fast, seedable PRNG returning [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a 32-bit hash of a string (seeds per key). */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Standard normal from two uniforms (Box-Muller). */
function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  const v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

const MINUTE = 60_000;
const TF_MS: Record<Exclude<Timeframe, '1M'>, number> = {
  '1m': MINUTE,
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '1h': 60 * MINUTE,
  '4h': 240 * MINUTE,
  '1d': 1440 * MINUTE,
  '1w': 7 * 1440 * MINUTE,
};

/** Open time of the candle holding ts (UTC; weeks start on Monday like Binance, months on the 1st). */
export function timeframeStart(tf: Timeframe, ts: number): number {
  if (tf === '1M') {
    const d = new Date(ts);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
  if (tf === '1w') {
    const monday = 4 * 86_400_000; // 1970-01-05 was a Monday
    return ts - ((((ts - monday) % TF_MS['1w']) + TF_MS['1w']) % TF_MS['1w']);
  }
  const ms = TF_MS[tf];
  return ts - (((ts % ms) + ms) % ms);
}

function previousStart(tf: Timeframe, start: number): number {
  if (tf === '1M') {
    const d = new Date(start);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
  }
  return start - TF_MS[tf];
}

function timeframeMinutes(tf: Timeframe): number {
  return tf === '1M' ? 30 * 1440 : TF_MS[tf] / MINUTE;
}

interface CandleSeries {
  candles: Candle[];
}

interface Pair {
  exchange: string;
  symbol: string;
  base: string;
  quote: string;
  index: number;
  /** Fixed offset (fraction) of this exchange's price. */
  offset: number;
  /** Mean-reverting deviation on top of the offset. */
  wobble: number;
  /** Current dislocation (fraction), decaying towards 0. */
  jump: number;
  /** Time (ms) of the next dislocation. */
  nextJump: number;
  held: number | null;
  price: number;
  market: Market;
  series: Map<Timeframe, CandleSeries>;
  listeners: Set<PriceListener>;
  /** When its price was last sent to its listeners (simulated ms; not persisted). */
  sentAt: number;
  /** The swaps whose mark follows this pair (linear on USDT/USDC pairs, inverse on USDT pairs). */
  swaps: SwapPair[];
}

/**
 * A perpetual swap of the simulated market: no walk of its own, its price (the mark) is its spot
 * pair's price on the same exchange (an inverse `X/USD:X` follows `X/USDT`, 1 USD taken as 1 USDT),
 * its candles are the spot pair's, and it is listed while the spot pair is.
 */
interface SwapPair {
  exchange: string;
  symbol: string;
  underlying: Pair;
  market: Market;
  listeners: Set<PriceListener>;
}

/** Tick size for a price level: about 5-6 significant digits, between 1e-8 and 0.01. */
export function simPriceStep(price: number): number {
  const exp = Math.floor(Math.log10(price)) - 5;
  return Math.min(0.01, Math.max(1e-8, Number(`1e${exp}`)));
}

/** Amount step worth about 1 USD or less, at most 1 unit. */
export function simAmountStep(price: number): number {
  const exp = Math.floor(Math.log10(1 / price));
  return Math.min(1, Math.max(1e-8, Number(`1e${exp}`)));
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
        const fees = simSpotFees(exchange);
        const startUsd = SIM_START_PRICES[base] ?? 1;
        const refPrice = startUsd / (QUOTE_USD[quote] ?? 1);
        const priceStep = simPriceStep(refPrice);
        const amountStep = simAmountStep(refPrice);
        const market: Market = {
          symbol,
          base,
          quote,
          active: true,
          amountStep,
          priceStep,
          minAmount: amountStep,
          minCost: fees.minCost,
          taker: fees.taker,
          maker: fees.maker,
          type: 'spot',
          // Every simulated spot pair allows isolated margin (Margin market type).
          margin: true,
          maxLeverage: MARGIN_MAX_LEVERAGE,
        };
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

  /** The swaps following a spot pair: linear on USDT and USDC pairs, inverse (1 USD contracts) on USDT. */
  private addSwaps(p: Pair): void {
    const common = {
      base: p.base,
      active: true,
      priceStep: p.market.priceStep,
      taker: SWAP_TAKER_FEE,
      maker: SWAP_MAKER_FEE,
      type: 'swap' as const,
      contractSize: 1,
      maxLeverage: swapMaxLeverage(p.base),
    };
    const markets: Market[] = [];
    if (p.quote === 'USDT' || p.quote === 'USDC') {
      markets.push({
        ...common,
        symbol: marketSymbol(p.symbol, 'Perpetual'),
        quote: p.quote,
        // Linear contracts are 1 base unit: the spot pair's steps and minimum cost apply.
        amountStep: p.market.amountStep,
        minAmount: p.market.amountStep,
        minCost: SIM_MIN_COST,
        linear: true,
        inverse: false,
        settle: p.quote,
      });
    }
    if (p.quote === 'USDT') {
      markets.push({
        ...common,
        symbol: marketSymbol(p.symbol, 'Inverse'),
        quote: 'USD',
        // Whole contracts of 1 USD; the minimum is one contract.
        amountStep: 1,
        minAmount: 1,
        minCost: 0,
        linear: false,
        inverse: true,
        settle: p.base,
      });
    }
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
          this.updateCandles(p, p.price);
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
    this.updateCandles(p, price);
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

  private updateCandles(p: Pair, price: number): void {
    for (const [tf, s] of p.series) {
      const start = timeframeStart(tf, this.now);
      const last = s.candles[s.candles.length - 1];
      if (last && last[0] === start) {
        last[2] = Math.max(last[2], price);
        last[3] = Math.min(last[3], price);
        last[4] = price;
        last[5] += this.volumeTick(p, price);
      } else if (!last || start > last[0]) {
        s.candles.push([
          start,
          last ? last[4] : price,
          Math.max(price, last?.[4] ?? price),
          Math.min(price, last?.[4] ?? price),
          price,
          0,
        ]);
        if (s.candles.length > this.maxCandles) s.candles.splice(0, s.candles.length - this.maxCandles);
      }
    }
  }

  private volumeTick(p: Pair, price: number): number {
    // ~20,000 USD of volume per second on the big pairs, less on the small ones.
    const usdPerSecond = p.base === 'BTC' || p.base === 'ETH' ? 20_000 : 2_000;
    return Number((usdPerSecond / price).toPrecision(6));
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

  /**
   * A book of `limit` levels (at most 10) per side: best bid one tick (or 0.01%) below the last
   * price, best ask the same above, 0.02% between levels, amounts worth 500-20,000 USD per level
   * (deterministic per pair and second).
   */
  orderBook(exchange: string, symbol: string, limit = 10): OrderBook {
    const p = this.pair(exchange, symbol);
    const swap = this.swap(exchange, symbol);
    const n = Math.max(1, Math.min(10, Math.floor(limit)));
    const step = p.market.priceStep;
    const half = Math.max(step, p.price * 0.0001);
    const gap = Math.max(step, p.price * 0.0002);
    const r = mulberry32(hash32(`${this.seed}:book:${exchange}:${symbol}:${Math.floor(this.now / 1000)}`));
    const usdQuote = QUOTE_USD[p.quote] ?? 1;
    const amountStep = swap ? swap.market.amountStep : p.market.amountStep;
    const level = (price: number) => {
      const usd = 500 + r() * 19_500;
      // Inverse swaps count contracts of `contractSize` USD; everything else base units.
      const raw = swap?.market.inverse ? usd / (swap.market.contractSize ?? 1) : usd / usdQuote / price;
      return Math.max(amountStep, roundToStep(raw, amountStep));
    };
    const bids: [number, number][] = [];
    const asks: [number, number][] = [];
    for (let i = 0; i < n; i++) {
      const bid = roundToStep(p.price - half - i * gap, step);
      if (bid > 0) bids.push([bid, level(bid)]);
      const ask = roundToStep(p.price + half + i * gap, step);
      asks.push([ask, level(ask)]);
    }
    return { symbol, bids, asks, timestamp: this.now };
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
    const r = mulberry32(hash32(`${this.seed}:candles:${p.exchange}:${p.symbol}:${tf}`));
    const base = DAILY_VOL[p.base] ?? 0.045;
    const sigma = base * Math.sqrt(timeframeMinutes(tf) / 1440);
    const step = p.market.priceStep;
    const out: Candle[] = [];
    let start = timeframeStart(tf, this.now);
    const usdVol = p.base === 'BTC' || p.base === 'ETH' ? 20_000 : 2_000;
    // The current candle, then history backwards: each candle closes where the next one opens.
    out.push([start, p.price, p.price, p.price, p.price, 0]);
    let close = p.price;
    for (let i = 0; i < this.historyCandles; i++) {
      start = previousStart(tf, start);
      const open = Math.max(step, roundToStep(close * Math.exp(-sigma * gaussian(r)), step));
      const hi = Math.max(open, close) * (1 + Math.abs(gaussian(r)) * sigma * 0.4);
      const lo = Math.min(open, close) * (1 - Math.abs(gaussian(r)) * sigma * 0.4);
      const volume = Number(((usdVol * timeframeMinutes(tf) * 60 * (0.5 + r())) / close).toPrecision(6));
      out.push([start, open, roundToStep(hi, step), Math.max(step, roundToStep(lo, step)), close, volume]);
      close = open;
    }
    return out.reverse();
  }
}

/** The simulator as one exchange's public market data (what PaperVenue and the hub read). */
export class SimulatedMarketData implements MarketDataSource {
  constructor(
    readonly simulator: MarketSimulator,
    readonly exchange: string,
  ) {
    if (!simulator.hasExchange(exchange)) {
      throw new VenueUnavailableError(`Unknown exchange '${exchange}' in the simulated market`, exchange);
    }
  }

  /** Spot and swap markets (swap marks follow their spot pair). */
  loadMarkets(): Promise<Record<string, Market>> {
    return Promise.resolve(this.simulator.markets(this.exchange, { swaps: true }));
  }

  fetchTicker(symbol: string): Promise<Ticker> {
    return this.wrap(() => this.simulator.ticker(this.exchange, symbol));
  }

  fetchOrderBook(symbol: string, limit?: number): Promise<OrderBook> {
    return this.wrap(() => this.simulator.orderBook(this.exchange, symbol, limit));
  }

  fetchOHLCV(symbol: string, timeframe: Timeframe, since?: number, limit?: number): Promise<Candle[]> {
    return this.wrap(() => this.simulator.candles(this.exchange, symbol, timeframe, since, limit));
  }

  /** Price changes of one symbol, pushed at once. */
  subscribe(symbol: string, listener: (price: number, timestamp: number) => void): () => void {
    return this.simulator.onPairPrice(this.exchange, symbol, (e) => listener(e.price, e.timestamp));
  }

  isListed(symbol: string): boolean {
    return this.simulator.isListed(this.exchange, symbol);
  }

  /** Last price now, synchronously. */
  lastPrice(symbol: string): number {
    return this.simulator.price(this.exchange, symbol);
  }

  private wrap<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}
