import { asciiTrim, DCA_MESSAGES, EXCHANGES, fillMessage } from '@bytx/contract';
import {
  InvalidOrderError,
  NotSupportedError,
  VenueError,
  type Candle,
  type Market,
  type MarketDataSource,
  type OrderBook,
  type Ticker,
  type Timeframe,
} from '@bytx/venues';
import type { MarketHub } from '../../context';
import { badRequest, HttpError } from '../../lib/errors';

/** A source that can push price changes (the simulator); others are polled. */
export interface PushSource extends MarketDataSource {
  subscribe(symbol: string, listener: (price: number, timestamp: number) => void): () => void;
}
const canPush = (s: MarketDataSource): s is PushSource =>
  typeof (s as Partial<PushSource>).subscribe === 'function';

export interface MarketHubOptions {
  /** The market data of one exchange key, created once per key (null: not available). */
  source: (exchange: string) => MarketDataSource | null;
  /** Cache lifetimes in ms (0: always read through; still one call in flight per key). */
  ttl?: Partial<Record<'markets' | 'ticker' | 'orderBook' | 'candles', number>>;
  /** Poll period of subscriptions on sources that cannot push (default 2,000 ms). */
  pollMs?: number;
  onError?: (err: unknown, exchange: string, symbol: string) => void;
}

export interface ListingChange {
  exchange: string;
  symbol: string;
  listed: boolean;
}

interface Entry<T> {
  value?: T;
  expires: number;
  pending?: Promise<T>;
}

interface Watch {
  listeners: Set<(t: Ticker) => void>;
  stop: () => void;
}

export const EXCHANGE_NAMES: Record<string, string> = Object.fromEntries(
  EXCHANGES.map((e) => [e.key, e.name]),
);

/**
 * The market-data hub (DESIGN.md principle 6): one upstream per (exchange, symbol) shared by every
 * user and bot, with a short cache and one request in flight per key; subscriptions watch
 * upstream once per pair however many listen.
 */
export class MarketHubService implements MarketHub {
  private readonly sources = new Map<string, MarketDataSource | null>();
  private readonly cache = new Map<string, Entry<unknown>>();
  private readonly watches = new Map<string, Watch>();
  private readonly ttl: Record<'markets' | 'ticker' | 'orderBook' | 'candles', number>;
  private readonly pollMs: number;

  constructor(private readonly opts: MarketHubOptions) {
    this.ttl = { markets: 3_600_000, ticker: 1_000, orderBook: 1_000, candles: 5_000, ...opts.ttl };
    this.pollMs = opts.pollMs ?? 2_000;
  }

  /** The source of an exchange key; a 400 naming the problem for unknown or closed exchanges. */
  sourceOf(exchange: string): MarketDataSource {
    const key = exchange.trim().toLowerCase();
    if (!this.sources.has(key)) {
      this.sources.set(key, key in EXCHANGE_NAMES ? this.opts.source(key) : null);
    }
    const s = this.sources.get(key);
    if (s) return s;
    if (key in EXCHANGE_NAMES) {
      throw badRequest(`${EXCHANGE_NAMES[key]} is no longer available: the exchange has closed or left ccxt`);
    }
    throw badRequest(
      `Unknown exchange '${exchange}'. Known exchanges: ${Object.keys(EXCHANGE_NAMES).join(', ')}`,
    );
  }

  private cached<T>(key: string, ttl: number, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const e = this.cache.get(key) as Entry<T> | undefined;
    if (e && e.value !== undefined && e.expires > now) return Promise.resolve(e.value);
    if (e?.pending) return e.pending;
    const entry: Entry<T> = e ?? { expires: 0 };
    const pending = load().then(
      (value) => {
        entry.value = value;
        entry.expires = Date.now() + ttl;
        entry.pending = undefined;
        return value;
      },
      (err: unknown) => {
        entry.pending = undefined;
        throw err;
      },
    );
    entry.pending = pending;
    this.cache.set(key, entry);
    return pending;
  }

  markets(exchange: string): Promise<Record<string, Market>> {
    const src = this.sourceOf(exchange);
    return this.cached(`m|${src.exchange}`, this.ttl.markets, () => src.loadMarkets());
  }

  async market(exchange: string, symbol: string): Promise<Market | null> {
    const resolved = await this.resolveSymbol(exchange, symbol);
    if (!resolved) return null;
    return (await this.markets(exchange))[resolved] ?? null;
  }

  /**
   * The exchange's own unified symbol for exactly this string after trimming ASCII whitespace (listed
   * or not), or null. No case folding and no compact forms ('BTCUSDT', 'btc-usdt'): one canonical
   * symbol everywhere, so bidi, zero-width and lookalike characters never match (docs/bots/runner.md).
   */
  async resolveSymbol(exchange: string, symbol: string): Promise<string | null> {
    const markets = await this.markets(exchange);
    const s = asciiTrim(symbol);
    return Object.prototype.hasOwnProperty.call(markets, s) ? (markets[s]?.symbol ?? null) : null;
  }

  /** Like resolveSymbol, but only a pair the exchange lists now (active); null otherwise. */
  async listedSymbol(exchange: string, symbol: string): Promise<string | null> {
    const s = await this.resolveSymbol(exchange, symbol);
    return s && (await this.markets(exchange))[s]?.active ? s : null;
  }

  /** Like resolveSymbol, but the spec's 400 '⚠️ This pair is not available on {exchange}.' when unknown. */
  async requireSymbol(exchange: string, symbol: string): Promise<string> {
    const s = await this.resolveSymbol(exchange, symbol);
    if (!s) {
      const name = EXCHANGE_NAMES[exchange.trim().toLowerCase()] ?? exchange;
      throw badRequest(fillMessage(DCA_MESSAGES.pairNotAvailable, { exchange: name }));
    }
    return s;
  }

  async ticker(exchange: string, symbol: string): Promise<Ticker> {
    const src = this.sourceOf(exchange);
    const s = await this.requireSymbol(exchange, symbol);
    return this.cached(`t|${src.exchange}|${s}`, this.ttl.ticker, () => src.fetchTicker(s));
  }

  async orderBook(exchange: string, symbol: string, limit = 10): Promise<OrderBook> {
    const src = this.sourceOf(exchange);
    const s = await this.requireSymbol(exchange, symbol);
    // One upstream book per pair (10 levels); smaller limits are cut from it.
    const book = await this.cached(`b|${src.exchange}|${s}`, this.ttl.orderBook, () =>
      src.fetchOrderBook(s, 10),
    );
    const n = Math.max(1, Math.min(10, Math.floor(limit)));
    return { ...book, bids: book.bids.slice(0, n), asks: book.asks.slice(0, n) };
  }

  async candles(exchange: string, symbol: string, timeframe: Timeframe, limit = 300): Promise<Candle[]> {
    const src = this.sourceOf(exchange);
    const s = await this.requireSymbol(exchange, symbol);
    const n = Math.max(1, Math.min(1000, Math.floor(limit)));
    // One upstream series per (pair, timeframe), the longest asked so far.
    const all = await this.cached(
      `c|${src.exchange}|${s}|${timeframe}|${n > 300 ? 1000 : 300}`,
      this.ttl.candles,
      () => src.fetchOHLCV(s, timeframe, undefined, n > 300 ? 1000 : 300),
    );
    return all.slice(-n);
  }

  subscribe(exchange: string, symbol: string, listener: (ticker: Ticker) => void): () => void {
    const src = this.sourceOf(exchange);
    const key = `${src.exchange}|${symbol}`;
    let w = this.watches.get(key);
    if (!w) {
      const watch: Watch = { listeners: new Set(), stop: () => undefined };
      const emit = (t: Ticker) => {
        for (const l of watch.listeners) l(t);
      };
      if (canPush(src)) {
        const unsub = src.subscribe(symbol, (price, timestamp) => {
          // Pushed sources are in-process: a fresh ticker is cheap, and the hub's cache follows.
          emit({ symbol, last: price, bid: null, ask: null, percentage: null, timestamp });
        });
        watch.stop = unsub;
      } else {
        let last: number | null = null;
        const timer = setInterval(() => {
          this.ticker(exchange, symbol).then(
            (t) => {
              if (t.last !== last) {
                last = t.last;
                emit(t);
              }
            },
            (err: unknown) => this.opts.onError?.(err, exchange, symbol),
          );
        }, this.pollMs);
        timer.unref();
        watch.stop = () => clearInterval(timer);
      }
      this.watches.set(key, watch);
      w = watch;
    }
    const watch = w;
    watch.listeners.add(listener);
    return () => {
      watch.listeners.delete(listener);
      if (watch.listeners.size === 0) {
        watch.stop();
        this.watches.delete(key);
      }
    };
  }

  private readonly listingListeners = new Set<(e: ListingChange) => void>();

  invalidateMarkets(exchange: string): void {
    const key = exchange.trim().toLowerCase();
    const src = this.sources.get(key);
    if (src) this.cache.delete(`m|${src.exchange}`);
  }

  onListing(listener: (e: ListingChange) => void): () => void {
    this.listingListeners.add(listener);
    return () => this.listingListeners.delete(listener);
  }

  /** A pair was delisted or relisted: the market list is read afresh and listeners hear it. */
  notifyListing(e: ListingChange): void {
    this.invalidateMarkets(e.exchange);
    for (const l of this.listingListeners) l(e);
  }

  /** Number of upstream watches (one per watched pair). */
  get watchCount(): number {
    return this.watches.size;
  }

  close(): void {
    for (const w of this.watches.values()) w.stop();
    this.watches.clear();
  }
}

/** Venue errors reaching a route become answers: a bad symbol is a 400, an upstream failure a 502. */
export function translate(err: unknown): unknown {
  if (err instanceof HttpError) return err;
  if (err instanceof InvalidOrderError) return badRequest(err.message);
  if (err instanceof NotSupportedError) return badRequest(err.message);
  if (err instanceof VenueError) {
    return new HttpError(
      502,
      `Market data from ${err.exchange} is not available right now; try again shortly`,
    );
  }
  return err;
}
