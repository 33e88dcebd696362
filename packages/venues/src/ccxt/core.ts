// The base of CcxtVenue: the two ccxt instances (spot, and swaps on first use), keys, every call's
// error translation, the market lists, and public market data and balances. Orders, derivatives and
// addresses are layered on it (orders.ts, derivatives.ts, ../ccxt-venue.ts).
import { EXCHANGES } from '@bytx/contract';
import ccxt from 'ccxt';
import { isSwapSymbol } from '../derivatives';
import {
  AuthenticationError,
  InvalidOrderError,
  NotSupportedError,
  UnsupportedFeatureError,
} from '../errors';
import { applyWalletRule } from '../exchanges/balances';
import { bookDepth, TICKER_CHANGE_FIELD } from '../exchanges/calls';
import { toNumber } from '../exchanges/numbers';
import { forgetFailedMarketLoad, resyncClock } from '../exchanges/clock';
import type { Balances, Candle, Market, OrderBook, Ticker, Timeframe, WalletType } from '../types';
import { callWithClockRetry, translateCcxtError } from './errors';
import { toBalances, toCandles, toMarket, toOrderBook, toTicker, type CcxtMarket } from './mapping';

export type CcxtExchange = InstanceType<(typeof ccxt)['Exchange']>;

export interface CcxtVenueOptions {
  /** One of the 20 exchange keys (catalog EXCHANGES). */
  exchange: string;
  apiKey?: string;
  secret?: string;
  /** Passphrase for exchanges that use one (OKX, KuCoin, Bitget). */
  password?: string;
  /** Extra ccxt constructor options (timeouts, proxies). */
  ccxtOptions?: Record<string, unknown>;
  /** Tests: replace ccxt's HTTP layer (a fetch-compatible function). */
  fetchImplementation?: (url: string, init: Record<string, unknown>) => Promise<Response>;
  /** How often the orders this venue watches are asked about (ms; default LIVE_ORDER_POLL_MS). */
  orderPollMs?: number;
}

/** The ccxt id of an exchange key; throws NotSupportedError for keys ccxt no longer has. */
export function ccxtIdOf(exchange: string): { ccxtId: string; sandbox: boolean; name: string } {
  const e = EXCHANGES.find((x) => x.key === exchange);
  if (!e) throw new NotSupportedError(`Unknown exchange '${exchange}'`, exchange);
  if (!e.ccxtId) {
    throw new NotSupportedError(
      `${e.name} is no longer available: the exchange has closed and cannot be connected`,
      exchange,
    );
  }
  return { ccxtId: e.ccxtId, sandbox: e.sandbox, name: e.name };
}

export abstract class CcxtVenueCore {
  readonly exchange: string;
  /** The underlying ccxt instance (tests, exchange-specific calls). */
  readonly ccxt: CcxtExchange;
  private readonly hasKeys: boolean;
  private marketsCache: Record<string, Market> | null = null;
  /** Builds the derivatives instance (same keys and HTTP layer; swap markets only). */
  private readonly makeDerivatives: () => CcxtExchange;
  protected derivatives: CcxtExchange | null = null;
  private swapCache: Record<string, Market> | null = null;
  /** When loading the swap markets last failed (ms): retried after a minute, not on every call. */
  private swapFailedAt = 0;
  /** True after close() (the registry evicted it): callers take a fresh venue. */
  closed = false;

  constructor(opts: CcxtVenueOptions) {
    this.exchange = opts.exchange;
    const { ccxtId, sandbox } = ccxtIdOf(opts.exchange);
    const Klass = (ccxt as unknown as Record<string, new (o: Record<string, unknown>) => CcxtExchange>)[
      ccxtId
    ];
    if (!Klass) throw new NotSupportedError(`ccxt has no exchange '${ccxtId}'`, opts.exchange);
    this.hasKeys = Boolean(opts.apiKey && opts.secret);
    const spotOnly: Record<string, unknown> = {
      defaultType: 'spot',
      fetchCurrencies: false,
      fetchMargins: false,
    };
    if (ccxtId === 'binance' || ccxtId === 'bybit' || ccxtId === 'okx')
      spotOnly.fetchMarkets = { types: ['spot'] };
    const make = (options: Record<string, unknown>): CcxtExchange => {
      const ex = new Klass({
        enableRateLimit: true,
        timeout: 15_000,
        ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
        ...(opts.secret ? { secret: opts.secret } : {}),
        ...(opts.password ? { password: opts.password } : {}),
        ...opts.ccxtOptions,
        options: { ...options, ...(opts.ccxtOptions?.options ?? {}) },
      });
      if (sandbox) ex.setSandboxMode(true);
      if (opts.fetchImplementation) {
        (ex as unknown as { fetchImplementation: unknown }).fetchImplementation = opts.fetchImplementation;
      }
      return ex;
    };
    this.ccxt = make(spotOnly);
    // Swaps live on a second instance: its market list (linear and inverse perpetuals) is loaded only
    // when a swap is used, and the spot instance keeps loading spot markets only.
    const swapOnly: Record<string, unknown> = {
      defaultType: 'swap',
      fetchCurrencies: false,
      fetchMargins: false,
    };
    if (ccxtId === 'binance' || ccxtId === 'bybit') swapOnly.fetchMarkets = { types: ['linear', 'inverse'] };
    if (ccxtId === 'okx') swapOnly.fetchMarkets = { types: ['swap'] };
    this.makeDerivatives = () => make(swapOnly);
  }

  /** The ccxt instance of swaps (created on first use). */
  protected get swapExchange(): CcxtExchange {
    this.derivatives ??= this.makeDerivatives();
    return this.derivatives;
  }

  /** The ccxt instance that trades `symbol`: the swap one for swap symbols. */
  protected exchangeFor(symbol: string | undefined): CcxtExchange {
    return symbol !== undefined && isSwapSymbol(symbol) ? this.swapExchange : this.ccxt;
  }

  /** Throws UnsupportedFeatureError when ccxt says the exchange's API lacks `capability`. */
  protected requireHas(ex: CcxtExchange, capability: string, what = capability): void {
    const has = (ex.has as Record<string, unknown>)[capability];
    if (!has) throw new UnsupportedFeatureError(this.exchange, what);
  }

  /** The exchange's perpetual swaps (linear and inverse), loaded once. */
  protected async loadSwapMarkets(): Promise<Record<string, Market>> {
    if (this.swapCache) return this.swapCache;
    const ex = this.swapExchange;
    if (!ex.has.swap) {
      this.swapCache = {};
      return this.swapCache;
    }
    const raw = await this.call(() => ex.loadMarkets());
    const out: Record<string, Market> = {};
    for (const m of Object.values(raw) as (CcxtMarket | undefined)[]) {
      if (!m || m.swap !== true || !(m.linear === true || m.inverse === true)) continue;
      out[m.symbol] = toMarket(m, Number(ex.precisionMode), ex.id);
    }
    this.swapCache = out;
    return out;
  }

  /** One ccxt call, its error translated; after a clock-skew error the clock is resynced, retried once. */
  protected call<T>(fn: () => Promise<T>): Promise<T> {
    return callWithClockRetry(
      fn,
      (err) => this.translate(err),
      () => resyncClock([this.ccxt, this.derivatives]),
    );
  }

  /** translateCcxtError with the last response's headers (Retry-After), of either ccxt instance. */
  private translate(err: unknown): Error {
    // A failed first market load is not kept: the next call loads the markets again (clock.ts).
    forgetFailedMarketLoad(this.ccxt);
    forgetFailedMarketLoad(this.derivatives);
    const headersOf = (ex: CcxtExchange | null) =>
      (ex as unknown as { last_response_headers?: Record<string, unknown> } | null)?.last_response_headers;
    return translateCcxtError(err, this.exchange, {
      ...headersOf(this.derivatives),
      ...headersOf(this.ccxt),
    });
  }

  protected requireKeys(): void {
    if (!this.hasKeys) {
      throw new AuthenticationError(
        `No API key for ${this.exchange}: connect the exchange first`,
        this.exchange,
      );
    }
  }

  /**
   * Spot markets, plus the perpetual swaps where the exchange has them. The swaps are best effort:
   * when their list cannot be loaded the spot markets are returned alone (tried again after 60 s).
   */
  async loadMarkets(): Promise<Record<string, Market>> {
    const spot = await this.loadSpotMarkets();
    if (this.swapCache) return { ...spot, ...this.swapCache };
    if (!this.ccxt.has.swap || Date.now() - this.swapFailedAt < 60_000) return spot;
    try {
      return { ...spot, ...(await this.loadSwapMarkets()) };
    } catch {
      this.swapFailedAt = Date.now();
      return spot;
    }
  }

  protected async loadSpotMarkets(): Promise<Record<string, Market>> {
    if (this.marketsCache) return this.marketsCache;
    const raw = await this.call(() => this.ccxt.loadMarkets());
    const out: Record<string, Market> = {};
    const mode = this.ccxt.precisionMode;
    for (const m of Object.values(raw) as (CcxtMarket | undefined)[]) {
      if (!m || m.spot !== true) continue;
      out[m.symbol] = toMarket(m, Number(mode), this.ccxt.id);
    }
    this.marketsCache = out;
    return out;
  }

  protected async market(symbol: string): Promise<Market> {
    const list = isSwapSymbol(symbol) ? await this.loadSwapMarkets() : await this.loadSpotMarkets();
    const m = list[symbol];
    if (!m)
      throw new InvalidOrderError(`${this.exchange} does not list ${symbol}`, this.exchange, 'bad_symbol');
    return m;
  }

  async fetchTicker(symbol: string): Promise<Ticker> {
    await this.market(symbol);
    const ex = this.exchangeFor(symbol);
    const t = await this.call(() => ex.fetchTicker(symbol));
    const ticker = toTicker(symbol, t);
    // The exchange's own 24 h change where ccxt's is from another open (exchanges/calls.ts: Bitstamp).
    const change = TICKER_CHANGE_FIELD[ex.id];
    const own = change ? toNumber((t.info as Record<string, unknown> | undefined)?.[change.field]) : null;
    return own === null ? ticker : { ...ticker, percentage: own };
  }

  async fetchOrderBook(symbol: string, limit = 10): Promise<OrderBook> {
    await this.market(symbol);
    const ex = this.exchangeFor(symbol);
    // Some exchanges take only a few depths (exchanges/calls.ts): the nearest one, cut to `limit`.
    const depth = bookDepth(ex.id, limit);
    return toOrderBook(symbol, await this.call(() => ex.fetchOrderBook(symbol, depth)), limit);
  }

  async fetchOHLCV(symbol: string, timeframe: Timeframe, since?: number, limit?: number): Promise<Candle[]> {
    await this.market(symbol);
    const ex = this.exchangeFor(symbol);
    return toCandles(await this.call(() => ex.fetchOHLCV(symbol, timeframe, since, limit)));
  }

  /**
   * The spot wallet; `{type: 'swap'}` the derivatives wallet (Binance: USDⓈ-M), `{type: 'margin'}`
   * the margin wallet (ccxt's `type` parameter).
   */
  async fetchBalance(params?: { type?: WalletType }): Promise<Balances> {
    this.requireKeys();
    const type = params?.type;
    if (type === 'swap') this.requireHas(this.ccxt, 'swap', 'a derivatives wallet');
    if (type === 'margin') this.requireHas(this.ccxt, 'margin', 'margin trading');
    const ex = type === 'swap' ? this.swapExchange : this.ccxt;
    const raw = await this.call(() =>
      type && type !== 'spot' ? ex.fetchBalance({ type }) : ex.fetchBalance(),
    );
    // BingX's perpetual wallet: the total and used as BingX states them (exchanges/balances.ts).
    return applyWalletRule(ex.id, type ?? 'spot', (raw as { info?: unknown }).info, toBalances(raw));
  }
}
