// One class over ccxt's unified API, ~1,000 lines: every Venue method (orders, lookups, balances, market
// data, derivatives, addresses) maps one ccxt call. What differs per exchange already lives beside it in
// exchanges/ (client ids, lookups, errors, precision, positions, deposits, capabilities); the next split,
// by concern (orders / market data / derivatives), is left to issue 38's remaining work, not done mid-issue.
import { EXCHANGES } from '@bytx/contract';
import ccxt from 'ccxt';
import { isSwapSymbol, marketTypeOf } from './derivatives';
import {
  AuthenticationError,
  ClockSkewError,
  InsufficientFundsError,
  InvalidOrderError,
  NotSupportedError,
  OrderNotFoundError,
  UnmappedExchangeError,
  UnsupportedFeatureError,
  VenueError,
  VenueNetworkError,
  VenueRateLimitError,
  VenueUnavailableError,
} from './errors';
import { resyncClock } from './exchanges/clock';
import { translateByExchange } from './exchanges/errors';
import { toNumber } from './exchanges/numbers';
import { finestStep, floorToRule, marketRule, precisionRule, roundToRule } from './exchanges/precision';
import type {
  Balances,
  Candle,
  CreateOrderRequest,
  DepositAddress,
  FundingRate,
  Liquidation,
  LiquidationListener,
  Market,
  Order,
  OrderBook,
  OrderListener,
  OrderStatus,
  Position,
  Ticker,
  Timeframe,
  TransferWallet,
  Venue,
  WalletType,
} from './types';
import { withdrawPermissionRule } from './withdraw-permission';
import {
  depositParams,
  ensureCurrencies,
  toDepositAddress,
  type DepositExchange,
} from './exchanges/deposits';
import { bybitAccountMarginMode, mapPosition, type MarginMode } from './exchanges/positions';
import {
  fetchOrderById,
  fetchOrderByClientIdDirect,
  findInLists,
  countsAsMiss,
  type LookupExchange,
} from './exchanges/lookups';
import { ccxtClientIdParams } from './exchanges/client-ids';

/**
 * A live exchange account (or public market data without keys) over ccxt 4.5. Every ccxt error is
 * translated here into our classes, which say what the caller does next.
 */

type CcxtExchange = InstanceType<(typeof ccxt)['Exchange']>;
/** The fields of a ccxt market we read. */
interface CcxtMarket {
  symbol: string;
  base: string;
  quote: string;
  active?: boolean | null;
  spot?: boolean;
  swap?: boolean;
  linear?: boolean | null;
  inverse?: boolean | null;
  settle?: string | null;
  contractSize?: number | null;
  taker?: number | null;
  maker?: number | null;
  precision?: { amount?: number | null; price?: number | null };
  limits?: {
    amount?: { min?: number | null };
    cost?: { min?: number | null };
    leverage?: { max?: number | null };
  };
}

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

/**
 * How often a live venue asks the exchange about the orders it placed or looked up that are still open
 * (ms): one `fetchOpenOrders` per symbol, then `fetchOrder` for each watched order no longer open. REST
 * cannot push fills; without this a resting order filled on the exchange (a bot's take profit, a
 * limit entry) would be learned of only at the next cancel or restart.
 */
export const LIVE_ORDER_POLL_MS = 5_000;

/** A watched order: what was last reported of it (a change is pushed to the listeners). */
interface Watched {
  symbol: string;
  clientOrderId: string | null;
  status: OrderStatus;
  filled: number;
  /** Lookups in a row the exchange answered "not found" or refused (bounded: LOOKUP_MISSES_MAX). */
  misses?: number;
  /** The order as last reported (what a lost order is reported with). */
  last?: Order;
}

/** A watched order the exchange no longer has: ended (canceled) with what was last known filled of it. */
function lostOrder(w: Watched, id: string, symbol: string): Order {
  const base: Order = w.last ?? {
    ...toOrder({ id, symbol, filled: w.filled }),
    clientOrderId: w.clientOrderId,
  };
  return { ...base, id, symbol, status: 'canceled', filled: w.filled, lost: true };
}

/**
 * After this many lookups in a row that the exchange answered "not found" or refused, a watched order
 * is resolved from the open and closed lists; when neither holds it, it is reported as `lost` and
 * forgotten (never asked about forever; see exchanges/lookups.ts).
 */
export const LOOKUP_MISSES_MAX = 3;

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

/** Numbers and numeric strings alike (Kraken's and Bybit's fees come as strings): exchanges/numbers.ts. */
const num = toNumber;

/**
 * Precision of a ccxt market as its finest step, whatever the exchange's precision mode (significant
 * digits: the finest step they allow; the digits themselves are kept on the market, see toMarket).
 */
export function precisionStep(value: unknown, precisionMode: number): number {
  return finestStep(precisionRule(value, precisionMode, 'price'));
}

/** `ccxtId` selects the exchange's precision exceptions (exchanges/precision.ts). */
export function toMarket(m: CcxtMarket, precisionMode: number, ccxtId = ''): Market {
  const amountRule = precisionRule(m.precision?.amount, precisionMode, 'amount', ccxtId);
  const priceRule = precisionRule(m.precision?.price, precisionMode, 'price', ccxtId);
  const amountStep = finestStep(amountRule);
  const priceStep = finestStep(priceRule);
  const market: Market = {
    symbol: m.symbol,
    base: m.base,
    quote: m.quote,
    active: m.active !== false,
    amountStep,
    priceStep,
    ...(amountRule.kind === 'significant' ? { amountSignificantDigits: amountRule.digits } : {}),
    ...(priceRule.kind === 'significant' ? { priceSignificantDigits: priceRule.digits } : {}),
    minAmount: num(m.limits?.amount?.min) ?? 0,
    minCost: num(m.limits?.cost?.min) ?? 0,
    taker: num(m.taker) ?? 0.001,
    maker: num(m.maker) ?? 0.001,
  };
  if (m.swap === true) {
    // Swap amounts are contracts (ccxt's unit); margin and PnL are in `settle`.
    const maxLeverage = num(m.limits?.leverage?.max);
    Object.assign(market, {
      type: 'swap',
      linear: m.linear === true,
      inverse: m.inverse === true,
      settle: m.settle ?? m.quote,
      contractSize: num(m.contractSize) ?? 1,
      ...(maxLeverage !== null ? { maxLeverage } : {}),
    });
  }
  return market;
}

const STATUS: Record<string, OrderStatus> = {
  open: 'open',
  closed: 'closed',
  canceled: 'canceled',
  cancelled: 'canceled',
  rejected: 'rejected',
  expired: 'expired',
};

/** The fields of a ccxt order we read (ccxt's own type is wider and loosely typed). */
interface CcxtOrder {
  id?: unknown;
  clientOrderId?: unknown;
  symbol?: unknown;
  side?: unknown;
  type?: unknown;
  price?: unknown;
  amount?: unknown;
  filled?: unknown;
  remaining?: unknown;
  average?: unknown;
  cost?: unknown;
  status?: unknown;
  fee?: { cost?: unknown; currency?: unknown } | null;
  timestamp?: unknown;
  lastUpdateTimestamp?: unknown;
  lastTradeTimestamp?: unknown;
  reduceOnly?: unknown;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

export function toOrder(input: unknown): Order {
  const o = (input ?? {}) as CcxtOrder;
  const amount = num(o.amount) ?? 0;
  const filled = num(o.filled) ?? 0;
  const feeCost = num(o.fee?.cost);
  return {
    id: str(o.id),
    clientOrderId: str(o.clientOrderId) || null,
    symbol: str(o.symbol),
    side: o.side === 'sell' ? 'sell' : 'buy',
    type: o.type === 'market' ? 'market' : 'limit',
    price: num(o.price),
    amount,
    filled,
    remaining: num(o.remaining) ?? Math.max(0, amount - filled),
    average: num(o.average),
    cost: num(o.cost) ?? 0,
    status: STATUS[str(o.status)] ?? 'open',
    fee: feeCost === null ? null : { cost: feeCost, currency: str(o.fee?.currency) },
    timestamp: num(o.timestamp) ?? Date.now(),
    lastUpdateTimestamp: num(o.lastUpdateTimestamp) ?? num(o.lastTradeTimestamp),
    ...(o.reduceOnly === true ? { reduceOnly: true } : {}),
  };
}

/**
 * A ccxt position in our shape, as the exchange reports it (exchanges/positions.ts: margin mode,
 * collateral, contract size, base amount); `settle` from the market; funding paid is not reported: 0.
 */
export function toPosition(
  input: unknown,
  settle: string,
  ccxtId = '',
  market?: Market,
  accountMode: MarginMode | null = null,
): Position {
  const type = marketTypeOf(str((input as { symbol?: unknown } | null)?.symbol));
  return mapPosition(ccxtId, input, { ...market, settle }, type === 'Spot' ? 'Margin' : type, accountMode);
}

/** Why an exchange refused an order, from its message (Binance filter names and common wordings). */
function invalidReason(msg: string): InvalidOrderError['reason'] {
  if (/NOTIONAL|min(imum)?\s*(order\s*)?(cost|notional|value)/i.test(msg)) return 'min_cost';
  if (/LOT_SIZE|min(imum)?\s*(order\s*)?(amount|qty|quantity|size)/i.test(msg)) return 'min_amount';
  if (/PRICE_FILTER|PERCENT_PRICE|invalid price/i.test(msg)) return 'bad_price';
  return 'other';
}

/**
 * Translates a ccxt error (or anything thrown inside ccxt) into our classes: by the exchange's own
 * table first (exchanges/errors: code, HTTP status, message), then by ccxt's class. `headers` are the
 * last response's (Retry-After of a 429).
 */
export function translateCcxtError(err: unknown, exchange: string, headers?: Record<string, unknown>): Error {
  if (err instanceof VenueError) return err;
  if (err instanceof ccxt.BaseError) {
    const mapped = translateByExchange(err, exchange, headers);
    if (mapped) return mapped;
  }
  const msg = err instanceof Error ? err.message : String(err);
  if (err instanceof ccxt.InvalidNonce) {
    return new ClockSkewError(`${exchange}: our clock and the exchange's disagree (${msg})`, exchange, err);
  }
  // Binance answers -2015 both for a key revoked (or its IP or permission removed) and for a
  // temporary ban; once a key has worked ccxt calls it DDoSProtection. Either way nothing can be sent
  // with it now: treated as a refused key, the bots pause and try it again until it works.
  if (err instanceof ccxt.DDoSProtection && /"code"\s*:\s*-2015\b/.test(msg)) {
    return new AuthenticationError(
      `${exchange} refused the API key (revoked, IP or permission removed, or temporarily banned) (${msg})`,
      exchange,
      err,
    );
  }
  if (err instanceof ccxt.RateLimitExceeded || err instanceof ccxt.DDoSProtection) {
    return new VenueRateLimitError(`${exchange}: too many requests, slow down (${msg})`, exchange, err);
  }
  if (err instanceof ccxt.OnMaintenance || err instanceof ccxt.ExchangeNotAvailable) {
    return new VenueUnavailableError(`${exchange} is not available right now (${msg})`, exchange, err);
  }
  if (err instanceof ccxt.RequestTimeout || err instanceof ccxt.NetworkError) {
    return new VenueNetworkError(`${exchange}: network error (${msg})`, exchange, err);
  }
  if (err instanceof ccxt.InsufficientFunds) {
    return new InsufficientFundsError(`${exchange}: insufficient balance (${msg})`, exchange, err);
  }
  if (err instanceof ccxt.OrderNotFound) {
    return new OrderNotFoundError(`${exchange}: order not found (${msg})`, exchange, err);
  }
  if (
    err instanceof ccxt.AuthenticationError ||
    err instanceof ccxt.PermissionDenied ||
    err instanceof ccxt.AccountSuspended
  ) {
    return new AuthenticationError(
      `${exchange} refused the API key: check it is valid, allows spot trading and this server's IP (${msg})`,
      exchange,
      err,
    );
  }
  if (err instanceof ccxt.BadSymbol) {
    return new InvalidOrderError(`${exchange}: unknown symbol (${msg})`, exchange, 'bad_symbol', err);
  }
  if (err instanceof ccxt.InvalidOrder) {
    return new InvalidOrderError(`${exchange} refused the order (${msg})`, exchange, invalidReason(msg), err);
  }
  if (err instanceof ccxt.NotSupported) {
    return new NotSupportedError(`${exchange} does not support this (${msg})`, exchange, err);
  }
  if (err instanceof ccxt.BadRequest || err instanceof ccxt.BadResponse) {
    return new InvalidOrderError(
      `${exchange} refused the request (${msg})`,
      exchange,
      invalidReason(msg),
      err,
    );
  }
  if (err instanceof ccxt.ExchangeError) {
    // Neither the exchange's table nor ccxt knows this answer: a bounded number of retries, then the
    // bot pauses with the exchange's own text (UnmappedExchangeError's action).
    return new UnmappedExchangeError(`${exchange} answered with an error (${msg})`, exchange, msg, err);
  }
  return new VenueNetworkError(`${exchange}: unexpected failure (${msg})`, exchange, err);
}

export class CcxtVenue implements Venue {
  readonly kind = 'live' as const;
  readonly exchange: string;
  /** The underlying ccxt instance (tests, exchange-specific calls). */
  readonly ccxt: CcxtExchange;
  private readonly hasKeys: boolean;
  private marketsCache: Record<string, Market> | null = null;
  /** Builds the derivatives instance (same keys and HTTP layer; swap markets only). */
  private readonly makeDerivatives: () => CcxtExchange;
  private derivatives: CcxtExchange | null = null;
  private swapCache: Record<string, Market> | null = null;
  /** When loading the swap markets last failed (ms): retried after a minute, not on every call. */
  private swapFailedAt = 0;
  /** Live isolated margin has no leverage setting: what the bot asked for, kept here. */
  private readonly marginLeverage = new Map<string, number>();
  private readonly listeners = new Set<OrderListener>();
  /** Open orders placed or looked up through this instance, by exchange order id. */
  private readonly watched = new Map<string, Watched>();
  private readonly orderPollMs: number;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  /** The exchange's currencies (with their networks), loaded once for deposit addresses. */
  private currenciesLoaded: Promise<void> | null = null;
  private polling = false;

  constructor(opts: CcxtVenueOptions) {
    this.exchange = opts.exchange;
    this.orderPollMs = opts.orderPollMs ?? LIVE_ORDER_POLL_MS;
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
  private get swapExchange(): CcxtExchange {
    this.derivatives ??= this.makeDerivatives();
    return this.derivatives;
  }

  /** The ccxt instance that trades `symbol`: the swap one for swap symbols. */
  private exchangeFor(symbol: string | undefined): CcxtExchange {
    return symbol !== undefined && isSwapSymbol(symbol) ? this.swapExchange : this.ccxt;
  }

  /** Throws UnsupportedFeatureError when ccxt says the exchange's API lacks `capability`. */
  private requireHas(ex: CcxtExchange, capability: string, what = capability): void {
    const has = (ex.has as Record<string, unknown>)[capability];
    if (!has) throw new UnsupportedFeatureError(this.exchange, what);
  }

  /** The exchange's perpetual swaps (linear and inverse), loaded once. */
  private async loadSwapMarkets(): Promise<Record<string, Market>> {
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

  /** Public market data only (no keys): the hub's source with MARKET_DATA=live. */
  static publicData(
    exchange: string,
    opts: Omit<CcxtVenueOptions, 'exchange' | 'apiKey' | 'secret'> = {},
  ): CcxtVenue {
    return new CcxtVenue({ ...opts, exchange });
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const e = this.translate(err);
      if (!(e instanceof ClockSkewError)) throw e;
      // ClockSkewError's action: measure the clock offset again, then retry the request once.
      await resyncClock([this.ccxt, this.derivatives]);
      try {
        return await fn();
      } catch (again) {
        throw this.translate(again);
      }
    }
  }

  /** translateCcxtError with the last response's headers (Retry-After), of either ccxt instance. */
  private translate(err: unknown): Error {
    const headersOf = (ex: CcxtExchange | null) =>
      (ex as unknown as { last_response_headers?: Record<string, unknown> } | null)?.last_response_headers;
    return translateCcxtError(err, this.exchange, {
      ...headersOf(this.derivatives),
      ...headersOf(this.ccxt),
    });
  }

  private requireKeys(): void {
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

  private async loadSpotMarkets(): Promise<Record<string, Market>> {
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

  private async market(symbol: string): Promise<Market> {
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
    const last = num(t.last) ?? num(t.close) ?? 0;
    return {
      symbol,
      last,
      bid: num(t.bid),
      ask: num(t.ask),
      percentage: num(t.percentage),
      timestamp: num(t.timestamp) ?? Date.now(),
    };
  }

  async fetchOrderBook(symbol: string, limit = 10): Promise<OrderBook> {
    await this.market(symbol);
    const ex = this.exchangeFor(symbol);
    const b = await this.call(() => ex.fetchOrderBook(symbol, limit));
    const lv = (x: unknown[][]): [number, number][] =>
      x.slice(0, limit).map((l) => [Number(l[0]), Number(l[1])] as [number, number]);
    return { symbol, bids: lv(b.bids), asks: lv(b.asks), timestamp: num(b.timestamp) ?? Date.now() };
  }

  async fetchOHLCV(symbol: string, timeframe: Timeframe, since?: number, limit?: number): Promise<Candle[]> {
    await this.market(symbol);
    const ex = this.exchangeFor(symbol);
    const rows = await this.call(() => ex.fetchOHLCV(symbol, timeframe, since, limit));
    return rows.map((r) => r.map((v) => Number(v)) as Candle);
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
    const b = await this.call(() =>
      type && type !== 'spot' ? ex.fetchBalance({ type }) : ex.fetchBalance(),
    );
    const out: Balances = {};
    const free = (b.free ?? {}) as unknown as Record<string, number | undefined>;
    const used = (b.used ?? {}) as unknown as Record<string, number | undefined>;
    const total = (b.total ?? {}) as unknown as Record<string, number | undefined>;
    for (const coin of Object.keys(total)) {
      const f = num(free[coin]) ?? 0;
      const u = num(used[coin]) ?? 0;
      out[coin] = { free: f, used: u, total: num(total[coin]) ?? f + u };
    }
    return out;
  }

  async createOrder(req: CreateOrderRequest): Promise<Order> {
    this.requireKeys();
    const m = await this.market(req.symbol);
    const swap = m.type === 'swap';
    if (req.marginMode === 'isolated' && !swap) this.requireHas(this.ccxt, 'margin', 'margin trading');
    if (req.reduceOnly && !swap && req.marginMode !== 'isolated') {
      throw new InvalidOrderError(
        `reduceOnly applies to derivatives and margin orders only, not to spot ${req.symbol}`,
        this.exchange,
        'other',
      );
    }
    const amount = floorToRule(req.amount, marketRule(m, 'amount'));
    if (!(amount > 0) || (m.minAmount > 0 && amount < m.minAmount)) {
      throw new InvalidOrderError(
        `Amount ${req.amount} ${m.base} is below the minimum ${Math.max(m.minAmount, m.amountStep)} ${m.base} for ${m.symbol}`,
        this.exchange,
        'min_amount',
      );
    }
    let price: number | undefined;
    if (req.type === 'limit') {
      if (req.price === undefined || !(req.price > 0)) {
        throw new InvalidOrderError('A limit order needs a positive price', this.exchange, 'bad_price');
      }
      price = roundToRule(req.price, marketRule(m, 'price'));
      // Linear contracts are worth contractSize × price; inverse ones have no minimum value here;
      // reduce-only orders are exempt (a remainder must be closable).
      const value = amount * price * (swap ? (m.contractSize ?? 1) : 1);
      if (m.minCost > 0 && !m.inverse && !req.reduceOnly && value < m.minCost) {
        throw new InvalidOrderError(
          `Order value ${value} ${m.quote} is below the minimum ${m.minCost} ${m.quote} for ${m.symbol}`,
          this.exchange,
          'min_cost',
        );
      }
    }
    // The id in the param ccxt reads for this exchange (its own name, or a number, where ccxt does not map it).
    const params: Record<string, unknown> = ccxtClientIdParams(this.ccxt.id, req.clientOrderId);
    if (swap && req.reduceOnly) params.reduceOnly = true;
    if (!swap && req.marginMode === 'isolated') {
      params.marginMode = 'isolated';
      // Binance borrows (or repays) automatically with the order only when asked.
      if (this.ccxt.id === 'binance') params.sideEffectType = req.reduceOnly ? 'AUTO_REPAY' : 'MARGIN_BUY';
      else if (req.reduceOnly) params.reduceOnly = true;
    }
    const ex = this.exchangeFor(req.symbol);
    const o = await this.call(() => ex.createOrder(req.symbol, req.type, req.side, amount, price, params));
    const order = toOrder(o);
    // Some exchanges answer a create with only the id: fill in what we sent.
    return this.watch({
      ...order,
      symbol: req.symbol,
      side: req.side,
      type: req.type,
      amount: order.amount || amount,
      remaining: order.amount ? order.remaining : amount - order.filled,
      price: order.price ?? price ?? null,
      clientOrderId: order.clientOrderId ?? req.clientOrderId,
      ...(req.reduceOnly ? { reduceOnly: true } : {}),
      ...(req.marginMode === 'isolated' && !swap ? { marginMode: 'isolated' as const } : {}),
    });
  }

  async cancelOrder(id: string, symbol: string): Promise<Order> {
    this.requireKeys();
    const ex = this.exchangeFor(symbol);
    const o = await this.call(() => ex.cancelOrder(id, symbol));
    // Binance spot and margin answer a cancel with the cancel request's own id in `clientOrderId` (one
    // it generates) and the order's in `origClientOrderId`, which ccxt leaves in `info`: the order is
    // known to its caller by the latter.
    const orig = str((o as { info?: Record<string, unknown> }).info?.origClientOrderId);
    return this.watch({ ...toOrder(o), ...(orig ? { clientOrderId: orig } : {}), symbol });
  }

  /** By the exchange's lookup rule (exchanges/lookups.ts: Bybit's unified accounts, HitBTC...). */
  async fetchOrder(id: string, symbol: string): Promise<Order> {
    this.requireKeys();
    const ex = this.exchangeFor(symbol) as unknown as LookupExchange;
    return this.watch(toOrder(await this.call(() => fetchOrderById(ex, id, symbol))), symbol);
  }

  /** The exchange's own lookup by client id where it has one, else its open and recent closed lists. */
  async fetchOrderByClientId(clientOrderId: string, symbol: string): Promise<Order | null> {
    this.requireKeys();
    const ex = this.exchangeFor(symbol) as unknown as LookupExchange;
    const direct = await this.call(() => fetchOrderByClientIdDirect(ex, clientOrderId, symbol)).catch(
      (err: unknown) => {
        // A lookup the exchange refuses (a parameter it does not take): the lists decide.
        if (err instanceof InvalidOrderError || err instanceof NotSupportedError) return undefined;
        throw err;
      },
    );
    if (direct === null) return null;
    const found = direct ?? (await this.call(() => findInLists(ex, symbol, { clientOrderId })));
    if (found === undefined) return null;
    const order = toOrder(found);
    return this.watch({ ...order, clientOrderId: order.clientOrderId ?? clientOrderId }, symbol);
  }

  async fetchOpenOrders(symbol?: string): Promise<Order[]> {
    this.requireKeys();
    const ex = this.exchangeFor(symbol);
    const list = await this.call(() => ex.fetchOpenOrders(symbol));
    return list.map(toOrder);
  }

  /**
   * The deposit address of `currency` on `network` (ccxt's unified code) or the exchange's default;
   * the network is returned with it. Currencies are loaded once (exchanges/deposits.ts); MEXC needs a
   * network, the first one taking deposits is asked for when none is given.
   */
  async fetchDepositAddress(currency: string, network?: string): Promise<DepositAddress> {
    this.requireKeys();
    const ex = this.ccxt as unknown as DepositExchange;
    await this.call(() => (this.currenciesLoaded ??= ensureCurrencies(ex, () => this.loadSpotMarkets())));
    const params = depositParams(ex, currency, network);
    const a: unknown = await this.call(() => this.ccxt.fetchDepositAddress(currency, params));
    return toDepositAddress(currency, a, params.network);
  }

  async createDepositAddress(currency: string, network?: string): Promise<DepositAddress> {
    this.requireKeys();
    if (!this.ccxt.has.createDepositAddress) return this.fetchDepositAddress(currency, network);
    const ex = this.ccxt as unknown as DepositExchange;
    await this.call(() => (this.currenciesLoaded ??= ensureCurrencies(ex, () => this.loadSpotMarkets())));
    const params = depositParams(ex, currency, network);
    const a: unknown = await this.call(() => this.ccxt.createDepositAddress(currency, params));
    return toDepositAddress(currency, a, params.network);
  }

  /**
   * Whether the key can withdraw: true / false where the exchange shows it (the rules and their sources
   * are in withdraw-permission.ts), null where it does not or its answer does not say. The platform
   * refuses keys that can withdraw.
   */
  async checkWithdrawPermission(): Promise<boolean | null> {
    this.requireKeys();
    const rule = withdrawPermissionRule(this.ccxt.id, this.ccxt.isSandboxModeEnabled);
    if (!rule) return null;
    const method = (this.ccxt as unknown as Record<string, unknown>)[rule.method];
    if (typeof method !== 'function') return null;
    const r: unknown = await this.call(() => (method as () => Promise<unknown>).call(this.ccxt));
    return rule.canWithdraw(r);
  }

  // --- derivatives and margin -----------------------------------------------------------------------

  /**
   * Swaps: isolated margin mode (`setMarginMode`, where the exchange has it; "already isolated" is
   * fine), then `setLeverage`. Spot symbols (Margin): live isolated margin has no leverage setting,
   * the value is only kept for `fetchLeverage`.
   */
  async setLeverage(leverage: number, symbol: string): Promise<number> {
    this.requireKeys();
    // What the exchange lacks is named before anything is asked of it.
    if (isSwapSymbol(symbol)) {
      this.requireHas(this.swapExchange, 'setLeverage');
      this.requireHas(this.ccxt, 'swap', 'perpetual swaps');
    } else this.requireHas(this.ccxt, 'margin', 'margin trading');
    const m = await this.market(symbol);
    const max = m.maxLeverage;
    if (!Number.isInteger(leverage) || leverage < 1 || (max !== undefined && leverage > max)) {
      throw new InvalidOrderError(
        `Leverage must be a whole number from 1 to ${max ?? 'the market maximum'} on ${symbol} (got ${String(leverage)})`,
        this.exchange,
        'other',
      );
    }
    if (m.type !== 'swap') {
      this.marginLeverage.set(symbol, leverage);
      return leverage;
    }
    const ex = this.swapExchange;
    this.requireHas(ex, 'setLeverage');
    if (ex.has.setMarginMode) {
      try {
        await ex.setMarginMode('isolated', symbol, { leverage });
      } catch (err) {
        if (!isNoChange(err)) throw translateCcxtError(err, this.exchange);
      }
    }
    try {
      await ex.setLeverage(leverage, symbol);
    } catch (err) {
      if (!isNoChange(err)) throw translateCcxtError(err, this.exchange);
    }
    return leverage;
  }

  async fetchLeverage(symbol: string): Promise<number> {
    this.requireKeys();
    if (!isSwapSymbol(symbol)) return this.marginLeverage.get(symbol) ?? 1;
    const ex = this.swapExchange;
    this.requireHas(ex, 'fetchLeverage');
    await this.market(symbol);
    const l = (await this.call(() => ex.fetchLeverage(symbol))) as {
      longLeverage?: unknown;
      shortLeverage?: unknown;
    };
    return num(l.longLeverage) ?? num(l.shortLeverage) ?? 1;
  }

  /** Open swap positions (ccxt `fetchPositions`); positions of size 0 are left out. */
  async fetchPositions(symbols?: string[]): Promise<Position[]> {
    this.requireKeys();
    const ex = this.swapExchange;
    this.requireHas(ex, 'fetchPositions');
    this.requireHas(this.ccxt, 'swap', 'perpetual swaps');
    const markets = await this.loadSwapMarkets();
    const swapSymbols = symbols?.filter((s) => isSwapSymbol(s));
    if (swapSymbols && swapSymbols.length === 0) return [];
    const list = await this.call(() => ex.fetchPositions(swapSymbols));
    // Bybit's unified accounts report the margin mode per account, not per position (positions.ts).
    const raw = ex as unknown as { privateGetV5AccountInfo?: () => Promise<unknown> };
    const accountMode =
      ex.id === 'bybit' && raw.privateGetV5AccountInfo
        ? bybitAccountMarginMode(await raw.privateGetV5AccountInfo().catch(() => null))
        : null;
    return (list as unknown[])
      .map((p) => {
        const symbol = str((p as { symbol?: unknown }).symbol);
        const m = markets[symbol];
        return toPosition(p, m?.settle ?? m?.quote ?? '', ex.id, m, accountMode);
      })
      .filter((p) => p.contracts > 0);
  }

  /** ccxt `fetchMyLiquidations`; the loss is not reported by the exchanges (0). */
  async fetchMyLiquidations(symbol: string, since?: number): Promise<Liquidation[]> {
    this.requireKeys();
    const ex = this.exchangeFor(symbol);
    this.requireHas(ex, 'fetchMyLiquidations');
    const m = await this.market(symbol);
    const list = await this.call(() => ex.fetchMyLiquidations(symbol, since));
    return (list as unknown[]).map((raw) => {
      const l = raw as {
        price?: unknown;
        contracts?: unknown;
        timestamp?: unknown;
        side?: unknown;
        info?: Record<string, unknown>;
      };
      // The exchange's side is the forced order's: a sell closes a long.
      const orderSide = str(l.side ?? l.info?.side).toLowerCase();
      return {
        symbol,
        side: orderSide === 'buy' ? 'short' : 'long',
        contracts: num(l.contracts) ?? 0,
        price: num(l.price) ?? 0,
        ts: num(l.timestamp) ?? 0,
        loss: 0,
        settle: m.settle ?? m.quote,
      } satisfies Liquidation;
    });
  }

  async fetchFundingRate(symbol: string): Promise<FundingRate> {
    this.requireHas(this.swapExchange, 'fetchFundingRate');
    const m = await this.market(symbol);
    if (m.type !== 'swap') {
      throw new InvalidOrderError(
        `${symbol} is not a perpetual swap: it has no funding`,
        this.exchange,
        'bad_symbol',
      );
    }
    const ex = this.swapExchange;
    const f = (await this.call(() => ex.fetchFundingRate(symbol))) as {
      fundingRate?: unknown;
      fundingTimestamp?: unknown;
      nextFundingTimestamp?: unknown;
      timestamp?: unknown;
    };
    return {
      symbol,
      rate: num(f.fundingRate) ?? 0,
      nextFundingTime: num(f.fundingTimestamp) ?? num(f.nextFundingTimestamp) ?? 0,
      timestamp: num(f.timestamp) ?? Date.now(),
    };
  }

  /** ccxt REST cannot push liquidations: poll `fetchPositions` / `fetchMyLiquidations`. */
  onLiquidation(_listener: LiquidationListener): () => void {
    return () => undefined;
  }

  /** ccxt `transfer` between the spot and the swap (Binance: USDⓈ-M) account. */
  async transfer(code: string, amount: number, from: TransferWallet, to: TransferWallet): Promise<void> {
    this.requireKeys();
    const wallets: readonly string[] = ['spot', 'swap'];
    if (!wallets.includes(from) || !wallets.includes(to) || from === to) {
      throw new InvalidOrderError(
        `A transfer goes between 'spot' and 'swap' (got '${String(from)}' to '${String(to)}')`,
        this.exchange,
        'other',
      );
    }
    if (!(Number.isFinite(amount) && amount > 0)) {
      throw new InvalidOrderError('Transfer amount must be a positive number', this.exchange, 'min_amount');
    }
    this.requireHas(this.ccxt, 'transfer');
    await this.call(() => this.ccxt.transfer(code, amount, from, to));
  }

  /**
   * ccxt REST cannot push, so the venue polls (LIVE_ORDER_POLL_MS) the orders it placed or looked up
   * while they are open, and pushes each change of status or filled amount to the listeners.
   */
  onOrderUpdate(listener: OrderListener): () => void {
    this.listeners.add(listener);
    this.schedulePoll();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopPoll();
    };
  }

  /** Remembers an open order (or forgets an ended one) for the poll; returns it unchanged. */
  private watch(order: Order, symbol = order.symbol): Order {
    if (order.status === 'open') {
      const prev = this.watched.get(order.id);
      this.watched.set(order.id, {
        symbol,
        clientOrderId: order.clientOrderId ?? prev?.clientOrderId ?? null,
        status: order.status,
        filled: order.filled,
        last: order,
      });
      this.schedulePoll();
    } else {
      this.watched.delete(order.id);
    }
    return order;
  }

  private schedulePoll(): void {
    if (this.pollTimer || this.closed || this.listeners.size === 0 || this.watched.size === 0) return;
    this.pollTimer = setInterval(() => void this.pollOrders(), this.orderPollMs);
    this.pollTimer.unref();
  }

  private stopPoll(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = null;
  }

  /**
   * One poll round: per symbol one `fetchOpenOrders`; a watched order still open is pushed when its
   * filled amount changed, one no longer open is read with `fetchOrder` and pushed (filled, cancelled,
   * expired). A failing call is left for the next round (rate limits, a network blip); an order the
   * exchange no longer knows is forgotten (the runner's reconcile settles it).
   */
  async pollOrders(): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      const bySymbol = new Map<string, string[]>();
      for (const [id, w] of this.watched) bySymbol.set(w.symbol, [...(bySymbol.get(w.symbol) ?? []), id]);
      for (const [symbol, ids] of bySymbol) {
        let open: Order[];
        try {
          open = await this.fetchOpenOrders(symbol);
        } catch {
          continue;
        }
        const openById = new Map(open.map((o) => [o.id, o]));
        for (const id of ids) {
          const before = this.watched.get(id);
          if (!before) continue;
          let now = openById.get(id) ?? null;
          if (!now) {
            const ex = this.exchangeFor(symbol) as unknown as LookupExchange;
            try {
              now = toOrder(await this.call(() => fetchOrderById(ex, id, symbol)));
            } catch (err) {
              const misses = countsAsMiss(err) ? (before.misses ?? 0) + 1 : 0;
              this.watched.set(id, { ...before, misses });
              if (misses < LOOKUP_MISSES_MAX) continue;
              // Bounded: the lists decide; an order neither holds is reported lost and forgotten.
              const key = { id, clientOrderId: before.clientOrderId };
              const listed = await this.call(() => findInLists(ex, symbol, key)).catch(() => null);
              if (listed === null) continue;
              now = listed === undefined ? lostOrder(before, id, symbol) : toOrder(listed);
            }
          }
          const order: Order = { ...now, symbol, clientOrderId: now.clientOrderId ?? before.clientOrderId };
          const changed = order.status !== before.status || order.filled !== before.filled;
          this.watch(order, symbol);
          if (changed) for (const l of this.listeners) l(order);
        }
      }
    } finally {
      this.polling = false;
      if (this.watched.size === 0) this.stopPoll();
    }
  }

  /** Nothing is saved locally: every change is the exchange's. */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  /** True after close() (the registry evicted it): callers take a fresh venue. */
  closed = false;

  async close(): Promise<void> {
    this.closed = true;
    this.stopPoll();
    this.listeners.clear();
    await (this.ccxt as unknown as { close?: () => Promise<void> }).close?.();
    if (this.derivatives) await (this.derivatives as unknown as { close?: () => Promise<void> }).close?.();
  }
}

/**
 * "Nothing to change" answers: the margin mode or leverage is already what was asked (ccxt's
 * MarginModeAlreadySet / NoChange, Binance -4046, Bybit 110026 / 110043).
 */
function isNoChange(err: unknown): boolean {
  const c = ccxt as unknown as Record<string, (new (...a: unknown[]) => Error) | undefined>;
  for (const name of ['MarginModeAlreadySet', 'NoChange']) {
    const K = c[name];
    if (K && err instanceof K) return true;
  }
  const msg = err instanceof Error ? err.message : String(err);
  return /-4046|No need to change|110026|110043|not modified/i.test(msg);
}
