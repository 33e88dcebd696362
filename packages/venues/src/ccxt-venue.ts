import { EXCHANGES } from '@bytx/contract';
import ccxt from 'ccxt';
import {
  AuthenticationError,
  InsufficientFundsError,
  InvalidOrderError,
  NotSupportedError,
  OrderNotFoundError,
  VenueError,
  VenueNetworkError,
  VenueRateLimitError,
  VenueUnavailableError,
} from './errors';
import { floorToStep, roundToStep } from './precision';
import type {
  Balances,
  Candle,
  CreateOrderRequest,
  DepositAddress,
  Market,
  Order,
  OrderBook,
  OrderListener,
  OrderStatus,
  Ticker,
  Timeframe,
  Venue,
} from './types';

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
  taker?: number | null;
  maker?: number | null;
  precision?: { amount?: number | null; price?: number | null };
  limits?: { amount?: { min?: number | null }; cost?: { min?: number | null } };
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

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Precision of a ccxt market as a step, whatever the exchange's precision mode. */
export function precisionStep(value: unknown, precisionMode: number): number {
  const v = num(value);
  if (v === null) return 1e-8;
  if (precisionMode === ccxt.TICK_SIZE) return v;
  // DECIMAL_PLACES (2) or SIGNIFICANT_DIGITS (3, approximated as decimals).
  return Number(`1e-${Math.max(0, Math.round(v))}`);
}

export function toMarket(m: CcxtMarket, precisionMode: number): Market {
  const amountStep = precisionStep(m.precision?.amount, precisionMode);
  const priceStep = precisionStep(m.precision?.price, precisionMode);
  return {
    symbol: m.symbol,
    base: m.base,
    quote: m.quote,
    active: m.active !== false,
    amountStep,
    priceStep,
    minAmount: num(m.limits?.amount?.min) ?? 0,
    minCost: num(m.limits?.cost?.min) ?? 0,
    taker: num(m.taker) ?? 0.001,
    maker: num(m.maker) ?? 0.001,
  };
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
  };
}

/** Why an exchange refused an order, from its message (Binance filter names and common wordings). */
function invalidReason(msg: string): InvalidOrderError['reason'] {
  if (/NOTIONAL|min(imum)?\s*(order\s*)?(cost|notional|value)/i.test(msg)) return 'min_cost';
  if (/LOT_SIZE|min(imum)?\s*(order\s*)?(amount|qty|quantity|size)/i.test(msg)) return 'min_amount';
  if (/PRICE_FILTER|PERCENT_PRICE|invalid price/i.test(msg)) return 'bad_price';
  return 'other';
}

/** Translates a ccxt error (or anything thrown inside ccxt) into our classes. */
export function translateCcxtError(err: unknown, exchange: string): Error {
  if (err instanceof VenueError) return err;
  const msg = err instanceof Error ? err.message : String(err);
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
    return new VenueUnavailableError(`${exchange} answered with an error (${msg})`, exchange, err);
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
    this.ccxt = new Klass({
      enableRateLimit: true,
      timeout: 15_000,
      ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
      ...(opts.secret ? { secret: opts.secret } : {}),
      ...(opts.password ? { password: opts.password } : {}),
      ...opts.ccxtOptions,
      options: { ...spotOnly, ...(opts.ccxtOptions?.options ?? {}) },
    });
    if (sandbox) this.ccxt.setSandboxMode(true);
    if (opts.fetchImplementation) {
      (this.ccxt as unknown as { fetchImplementation: unknown }).fetchImplementation =
        opts.fetchImplementation;
    }
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
      throw translateCcxtError(err, this.exchange);
    }
  }

  private requireKeys(): void {
    if (!this.hasKeys) {
      throw new AuthenticationError(
        `No API key for ${this.exchange}: connect the exchange first`,
        this.exchange,
      );
    }
  }

  async loadMarkets(): Promise<Record<string, Market>> {
    if (this.marketsCache) return this.marketsCache;
    const raw = await this.call(() => this.ccxt.loadMarkets());
    const out: Record<string, Market> = {};
    const mode = this.ccxt.precisionMode;
    for (const m of Object.values(raw) as (CcxtMarket | undefined)[]) {
      if (!m || m.spot !== true) continue;
      out[m.symbol] = toMarket(m, Number(mode));
    }
    this.marketsCache = out;
    return out;
  }

  private async market(symbol: string): Promise<Market> {
    const m = (await this.loadMarkets())[symbol];
    if (!m)
      throw new InvalidOrderError(`${this.exchange} does not list ${symbol}`, this.exchange, 'bad_symbol');
    return m;
  }

  async fetchTicker(symbol: string): Promise<Ticker> {
    await this.market(symbol);
    const t = await this.call(() => this.ccxt.fetchTicker(symbol));
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
    const b = await this.call(() => this.ccxt.fetchOrderBook(symbol, limit));
    const lv = (x: unknown[][]): [number, number][] =>
      x.slice(0, limit).map((l) => [Number(l[0]), Number(l[1])] as [number, number]);
    return { symbol, bids: lv(b.bids), asks: lv(b.asks), timestamp: num(b.timestamp) ?? Date.now() };
  }

  async fetchOHLCV(symbol: string, timeframe: Timeframe, since?: number, limit?: number): Promise<Candle[]> {
    await this.market(symbol);
    const rows = await this.call(() => this.ccxt.fetchOHLCV(symbol, timeframe, since, limit));
    return rows.map((r) => r.map((v) => Number(v)) as Candle);
  }

  async fetchBalance(): Promise<Balances> {
    this.requireKeys();
    const b = await this.call(() => this.ccxt.fetchBalance());
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
    const amount = floorToStep(req.amount, m.amountStep);
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
      price = roundToStep(req.price, m.priceStep);
      if (m.minCost > 0 && amount * price < m.minCost) {
        throw new InvalidOrderError(
          `Order value ${amount * price} ${m.quote} is below the minimum ${m.minCost} ${m.quote} for ${m.symbol}`,
          this.exchange,
          'min_cost',
        );
      }
    }
    const o = await this.call(() =>
      this.ccxt.createOrder(req.symbol, req.type, req.side, amount, price, {
        clientOrderId: req.clientOrderId,
      }),
    );
    const order = toOrder(o);
    // Some exchanges answer a create with only the id: fill in what we sent.
    return {
      ...order,
      symbol: req.symbol,
      side: req.side,
      type: req.type,
      amount: order.amount || amount,
      remaining: order.amount ? order.remaining : amount - order.filled,
      price: order.price ?? price ?? null,
      clientOrderId: order.clientOrderId ?? req.clientOrderId,
    };
  }

  async cancelOrder(id: string, symbol: string): Promise<Order> {
    this.requireKeys();
    const o = await this.call(() => this.ccxt.cancelOrder(id, symbol));
    return { ...toOrder(o), symbol };
  }

  async fetchOrder(id: string, symbol: string): Promise<Order> {
    this.requireKeys();
    return toOrder(await this.call(() => this.ccxt.fetchOrder(id, symbol)));
  }

  async fetchOrderByClientId(clientOrderId: string, symbol: string): Promise<Order | null> {
    this.requireKeys();
    try {
      const o = await this.call(() =>
        this.ccxt.fetchOrder('', symbol, { clientOrderId, origClientOrderId: clientOrderId }),
      );
      const order = toOrder(o);
      if (order.clientOrderId === null || order.clientOrderId === clientOrderId) {
        return { ...order, clientOrderId };
      }
    } catch (err) {
      if (err instanceof OrderNotFoundError) return null;
      if (!(err instanceof InvalidOrderError || err instanceof NotSupportedError)) throw err;
    }
    // Exchanges without a lookup by client id: scan open, then recent closed orders.
    const open = await this.fetchOpenOrders(symbol);
    const hit = open.find((o) => o.clientOrderId === clientOrderId);
    if (hit) return hit;
    if (this.ccxt.has.fetchClosedOrders) {
      const closed = await this.call(() => this.ccxt.fetchClosedOrders(symbol));
      const c = closed.map(toOrder).find((o) => o.clientOrderId === clientOrderId);
      if (c) return c;
    }
    return null;
  }

  async fetchOpenOrders(symbol?: string): Promise<Order[]> {
    this.requireKeys();
    const list = await this.call(() => this.ccxt.fetchOpenOrders(symbol));
    return list.map(toOrder);
  }

  async fetchDepositAddress(currency: string): Promise<DepositAddress> {
    this.requireKeys();
    const a = await this.call(() => this.ccxt.fetchDepositAddress(currency));
    return {
      currency,
      address: String(a.address),
      tag: typeof a.tag === 'string' && a.tag !== '' ? a.tag : null,
      network: typeof a.network === 'string' ? a.network : null,
    };
  }

  async createDepositAddress(currency: string): Promise<DepositAddress> {
    this.requireKeys();
    if (!this.ccxt.has.createDepositAddress) return this.fetchDepositAddress(currency);
    const a = await this.call(() => this.ccxt.createDepositAddress(currency));
    return {
      currency,
      address: String(a.address),
      tag: typeof a.tag === 'string' && a.tag !== '' ? a.tag : null,
      network: typeof a.network === 'string' ? a.network : null,
    };
  }

  /**
   * Whether the key can withdraw: true / false where the exchange shows it (Binance's API
   * restrictions), null where it does not. The platform refuses keys that can withdraw.
   */
  async checkWithdrawPermission(): Promise<boolean | null> {
    this.requireKeys();
    if (this.ccxt.id !== 'binance' || this.ccxt.isSandboxModeEnabled) return null;
    const api = this.ccxt as unknown as {
      sapiGetAccountApiRestrictions: () => Promise<Record<string, unknown>>;
    };
    const r = await this.call(() => api.sapiGetAccountApiRestrictions());
    return r.enableWithdrawals === true || r.enableWithdrawals === 'true';
  }

  /** ccxt REST cannot push: the runner polls fetchOpenOrders / fetchOrder. */
  onOrderUpdate(_listener: OrderListener): () => void {
    return () => undefined;
  }

  /** Nothing is saved locally: every change is the exchange's. */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  /** True after close() (the registry evicted it): callers take a fresh venue. */
  closed = false;

  async close(): Promise<void> {
    this.closed = true;
    await (this.ccxt as unknown as { close?: () => Promise<void> }).close?.();
  }
}
