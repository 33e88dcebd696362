import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { simulatedFundingRate, FUNDING_INTERVAL_MS } from '../derivatives';
import { InsufficientFundsError, InvalidOrderError } from '../errors';
import { MemoryPaperStore, PaperVenue } from '../paper-venue';
import { MarketSimulator, SimulatedMarketData } from '../simulator';
import type { Market, Order, TransferWallet } from '../types';
import { readBody, type LedgerEntry } from './http';
import { DEFAULT_FAULT_SETTINGS, FaultPlan, type FaultKind, type FaultSettings } from './faults';
import {
  BYBIT,
  BybitError,
  INTERVALS,
  bybitId,
  envelope,
  klines,
  linearInstrument,
  orderbook,
  position,
  s,
  spotInstrument,
  ticker,
  orderObject,
  coinInfo,
  walletBalance,
  queryApi,
  OPEN,
  type BybitStatus,
  type Category,
  type EmuOrder,
  type View,
} from './bybit-v5-wire';

/**
 * A localhost Bybit v5 REST server for a UNIFIED trading account (categories spot and linear): the
 * subset ccxt's `bybit` calls for the platform's Venue methods, backed by our paper matching engine
 * (PaperVenue on a MarketSimulator's 'bybit' exchange), with the faults of faults.ts on demand. The
 * real CcxtVenue + ccxt trade against it with every ccxt bybit URL pointed here
 * (index.ts `bybitEmulatorUrlOptions`). Wire format: https://bybit-exchange.github.io/docs/v5/intro
 *
 * One wallet, as on a unified account: the paper engine keeps a spot and a derivatives wallet, so
 * GET /v5/account/wallet-balance reports their sum per coin, and before an order the free funds it
 * needs are moved into the wallet it trades from (nothing the client sees changes).
 */

export const BYBIT_EMULATOR_API_KEY = 'bybit-emulator-key';
export const BYBIT_EMULATOR_SECRET = 'bybit-emulator-secret';

export interface BybitEmulatorOptions {
  /** Prices and markets (the 'bybit' exchange of the simulator); a fresh one by default. */
  simulator?: MarketSimulator;
  apiKey?: string;
  secret?: string;
  /** The unified account's starting balances (default 10,000 USDT). */
  initialBalances?: Record<string, number>;
  /** The key has the "Withdraw" permission (GET /v5/user/query-api): the platform must refuse it. */
  canWithdraw?: boolean;
  /** Seed of the random faults (replayable runs). */
  seed?: number;
  faults?: Partial<FaultSettings>;
}

export class BybitV5Emulator {
  readonly simulator: MarketSimulator;
  readonly venue: PaperVenue;
  readonly faults: FaultPlan;
  readonly settings: FaultSettings;
  /** Server clock minus the real clock (ms): a skew the client must learn from GET /v5/market/time. */
  clockOffsetMs = 0;
  /** Requests answered, faulted or not. */
  requests = 0;
  /** The last requests (method, path and the fault applied), newest last; at most 200 kept. */
  readonly requestLog: { method: string; path: string; fault: FaultKind | null }[] = [];
  /** Creations refused because the orderLinkId was already used (a second placement attempt). */
  duplicateAttempts = 0;
  /** The account's margin mode (GET /v5/account/info; set by POST /v5/account/set-margin-mode). */
  marginMode: 'REGULAR_MARGIN' | 'ISOLATED_MARGIN' | 'PORTFOLIO_MARGIN' = 'REGULAR_MARGIN';
  canWithdraw: boolean;
  private readonly apiKey: string;
  private readonly secret: string;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly held = new Set<ServerResponse>();
  private readonly orders = new Map<string, EmuOrder>();
  private readonly byLinkId = new Map<string, string>();
  private nextOrderId = 1_900_000_001;
  private port = 0;

  constructor(opts: BybitEmulatorOptions = {}) {
    this.simulator = opts.simulator ?? new MarketSimulator();
    this.apiKey = opts.apiKey ?? BYBIT_EMULATOR_API_KEY;
    this.secret = opts.secret ?? BYBIT_EMULATOR_SECRET;
    this.canWithdraw = opts.canWithdraw ?? false;
    this.faults = new FaultPlan(opts.seed ?? 1);
    this.settings = { ...DEFAULT_FAULT_SETTINGS, ...opts.faults };
    this.venue = new PaperVenue({
      accountId: 'bybit-emulator',
      feed: new SimulatedMarketData(this.simulator, 'bybit'),
      store: new MemoryPaperStore(),
      initialBalances: opts.initialBalances ?? { USDT: 10_000 },
      // One unified wallet: every fund starts in the spot one and moves where an order needs it.
      initialDerivativesBalances: {},
    });
    this.server = createServer((req, res) => {
      void this.handle(req, res);
    });
    this.server.on('connection', (sock) => {
      this.sockets.add(sock);
      sock.on('close', () => this.sockets.delete(sock));
    });
  }

  /** Listens on 127.0.0.1 (port 0: any free port); returns the base URL. */
  async start(port = 0): Promise<string> {
    await this.venue.ready();
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this.baseUrl;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    for (const sock of this.sockets) sock.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.venue.close();
  }

  /** Queues a one-shot fault (order faults wait for the next order creation). */
  inject(kind: FaultKind, times = 1): void {
    this.faults.inject(kind, times);
  }

  /** Faults `probability` of all requests at random, drawn among `kinds`. */
  setFaultRate(probability: number, kinds?: readonly FaultKind[]): void {
    this.faults.setRate(probability, kinds);
  }

  /** Sends the amounts withheld by 'partial-fill' faults to the matching engine. */
  async releaseWithheld(): Promise<void> {
    for (const o of this.orders.values()) {
      // A market order is IOC: its withheld rest was cancelled at creation (PartiallyFilledCanceled, a
      // final state); releasing it would fill an order the client already settled as ended.
      if (o.withheld <= 0 || o.canceled || o.type === 'market') continue;
      const amount = o.withheld;
      o.withheld = 0;
      const leg = await this.venue.createOrder({
        symbol: o.market.symbol,
        side: o.side,
        type: o.type,
        amount,
        ...(o.price !== null ? { price: o.price } : {}),
        ...(o.reduceOnly ? { reduceOnly: true } : {}),
        clientOrderId: `${o.orderLinkId}#${o.legs.length + 1}`,
      });
      o.legs.push(leg.id);
    }
  }

  /** Every order the exchange holds (spot and linear), with its fill. */
  async ledger(): Promise<LedgerEntry[]> {
    const out: LedgerEntry[] = [];
    for (const o of this.orders.values()) {
      const v = await this.view(o, true);
      out.push({
        orderId: o.orderId,
        clientOrderId: o.orderLinkId,
        symbol: o.market.symbol,
        market: o.category === 'spot' ? 'spot' : 'swap',
        side: o.side,
        amount: o.amount,
        filled: v.filled,
        status: v.status === 'Filled' ? 'closed' : OPEN.has(v.status) ? 'open' : 'canceled',
      });
    }
    return out;
  }

  private now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  // --- HTTP ----------------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requests += 1;
    try {
      const body = await readBody(req);
      const url = new URL(req.url ?? '/', this.baseUrl);
      const method = req.method ?? 'GET';
      const isCreate = method === 'POST' && url.pathname === '/v5/order/create';
      const fault = this.faults.next(isCreate);
      this.requestLog.push({ method, path: url.pathname, fault });
      if (this.requestLog.length > 200) this.requestLog.shift();
      if (fault === 'timeout') {
        this.held.add(res);
        res.on('close', () => this.held.delete(res));
        return;
      }
      if (fault === 'server-error') {
        // A gateway's answer, not Bybit's JSON: ccxt reads the status (ExchangeNotAvailable).
        res.writeHead(503, { 'content-type': 'text/html' });
        res.end('<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>');
        return;
      }
      if (fault === 'rate-limit') {
        // The per-UID limit: HTTP 200, retCode 10006, and when the limit resets in Bybit's headers
        // (https://bybit-exchange.github.io/docs/v5/rate-limit).
        const reset = this.now() + this.settings.retryAfterS * 1_000;
        return send(
          res,
          200,
          envelope({}, this.now(), BYBIT.rateLimit, 'Too many visits. Exceeded the API Rate Limit.'),
          {
            'X-Bapi-Limit': '10',
            'X-Bapi-Limit-Status': '0',
            'X-Bapi-Limit-Reset-Timestamp': String(reset),
          },
        );
      }
      const query = url.search.length > 1 ? url.search.slice(1) : '';
      const params = new URLSearchParams(query);
      let json: Record<string, unknown> = {};
      if (method === 'POST' && body.length > 0) {
        try {
          json = JSON.parse(body) as Record<string, unknown>;
        } catch {
          throw new BybitError(BYBIT.params, 'Request parameter error.');
        }
        if (json === null || typeof json !== 'object' || Array.isArray(json)) {
          throw new BybitError(BYBIT.params, 'Request parameter error.');
        }
        for (const [k, v] of Object.entries(json)) {
          // Bybit's bodies are flat: strings, numbers and booleans.
          if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
            params.set(k, String(v));
        }
      }
      if (!url.pathname.startsWith('/v5/market/')) {
        if (fault === 'clock-skew') throw this.skewError(Date.now() - 60_000, 5_000);
        this.authenticate(req, method === 'POST' ? body : query);
      }
      const result = await this.route(method, url.pathname, params, isCreate ? fault : null);
      if (fault === 'drop-after-accept' && isCreate) {
        // Accepted and kept, but the answer never arrives: the socket is cut.
        req.socket.destroy();
        return;
      }
      send(res, 200, envelope(result, this.now()));
    } catch (err) {
      if (err instanceof BybitError)
        return send(res, err.http, envelope({}, this.now(), err.retCode, err.message));
      send(res, 200, envelope({}, this.now(), 10016, `Internal system error: ${(err as Error).message}`));
    }
  }

  /**
   * X-BAPI-API-KEY, X-BAPI-SIGN (hex HMAC-SHA256 of timestamp + key + recv_window + the query string
   * of a GET or the body of a POST) and the time window: server_time - recv_window <= timestamp <
   * server_time + 1000 (https://bybit-exchange.github.io/docs/v5/guide#authentication).
   */
  private authenticate(req: IncomingMessage, payload: string): void {
    const header = (name: string): string => {
      const v = req.headers[name];
      return typeof v === 'string' ? v : '';
    };
    if (header('x-bapi-api-key') !== this.apiKey) throw new BybitError(BYBIT.apiKey, 'API key is invalid.');
    const ts = header('x-bapi-timestamp');
    const recv = header('x-bapi-recv-window') || '5000';
    const origin = ts + this.apiKey + recv + payload;
    const want = createHmac('sha256', this.secret).update(origin).digest('hex');
    const sign = header('x-bapi-sign');
    if (sign.length !== want.length || !timingSafeEqual(Buffer.from(sign), Buffer.from(want))) {
      throw new BybitError(BYBIT.sign, `error sign! origin_string[${origin}]`);
    }
    const t = Number(ts);
    const window = Number(recv);
    const now = this.now();
    if (!Number.isFinite(t) || !Number.isFinite(window) || t < now - window || t >= now + 1_000) {
      throw this.skewError(t, window);
    }
  }

  private skewError(ts: number, recvWindow: number): BybitError {
    return new BybitError(
      BYBIT.timestamp,
      `invalid request, please check your server timestamp or recv_window param. req_timestamp[${ts}],server_timestamp[${this.now()}],recv_window[${recvWindow}]`,
    );
  }

  private async route(
    method: string,
    path: string,
    p: URLSearchParams,
    fault: FaultKind | null,
  ): Promise<unknown> {
    const key = `${method} ${path}`;
    switch (key) {
      case 'GET /v5/market/time': {
        const now = this.now();
        return { timeSecond: String(Math.floor(now / 1_000)), timeNano: `${now}000000` };
      }
      case 'GET /v5/market/instruments-info': {
        const category = p.get('category');
        // Pre-launch markets (ccxt asks for them beside the listed ones) and inverse ones: none here.
        if (p.get('status') === 'PreLaunch' || category === 'inverse') {
          return { category, list: [], nextPageCursor: '' };
        }
        const cat = this.category(p);
        const list = this.markets(cat).map((m) => (cat === 'spot' ? spotInstrument(m) : linearInstrument(m)));
        return { category: cat, list, nextPageCursor: '' };
      }
      case 'GET /v5/market/tickers': {
        const cat = this.category(p);
        const list = [];
        const markets = p.get('symbol') ? [this.marketOf(cat, p)] : this.markets(cat);
        for (const m of markets)
          list.push(ticker(this.simulator, m, cat === 'linear' ? await this.funding(m) : null));
        return { category: cat, list };
      }
      case 'GET /v5/market/orderbook': {
        const m = this.marketOf(this.category(p), p);
        return orderbook(this.simulator, m, Math.min(200, Number(p.get('limit') ?? 25) || 25), this.now());
      }
      case 'GET /v5/market/kline': {
        const cat = this.category(p);
        const m = this.marketOf(cat, p);
        const tf = INTERVALS[p.get('interval') ?? ''];
        if (!tf) throw new BybitError(BYBIT.params, 'Invalid period!');
        const start = p.get('start') ? Number(p.get('start')) : undefined;
        const limit = Math.min(1_000, Number(p.get('limit') ?? 200) || 200);
        return { category: cat, symbol: bybitId(m), list: klines(this.simulator, m, tf, start, limit) };
      }
      case 'GET /v5/market/funding/history': {
        const m = this.marketOf('linear', p);
        const limit = Math.min(200, Number(p.get('limit') ?? 200) || 200);
        const last = Math.floor(this.now() / FUNDING_INTERVAL_MS) * FUNDING_INTERVAL_MS;
        const list = [];
        for (let i = 0; i < limit; i++) {
          const t = last - i * FUNDING_INTERVAL_MS;
          list.push({
            symbol: bybitId(m),
            fundingRate: s(simulatedFundingRate(m.symbol, t)),
            fundingRateTimestamp: String(t),
          });
        }
        return { category: 'linear', list };
      }
      case 'GET /v5/user/query-api':
        return queryApi(this.apiKey, this.canWithdraw, this.now());
      case 'GET /v5/asset/coin/query-info':
        return { rows: coinInfo(this.markets('spot'), p.get('coin')) };
      case 'GET /v5/account/info':
        return {
          marginMode: this.marginMode,
          updatedTime: String(this.now()),
          // 5/6: unified trade account 2.0 (https://bybit-exchange.github.io/docs/v5/account/account-info).
          unifiedMarginStatus: 5,
          dcpStatus: 'OFF',
          timeWindow: 10,
          smpGroup: 0,
          isMasterTrader: false,
          spotHedgingStatus: 'OFF',
        };
      case 'POST /v5/account/set-margin-mode': {
        const mode = p.get('setMarginMode');
        if (mode !== 'ISOLATED_MARGIN' && mode !== 'REGULAR_MARGIN' && mode !== 'PORTFOLIO_MARGIN') {
          throw new BybitError(BYBIT.params, 'Request parameter error.');
        }
        this.marginMode = mode;
        return { reasons: [] };
      }
      case 'GET /v5/account/wallet-balance':
        if (p.get('accountType') !== 'UNIFIED') {
          throw new BybitError(BYBIT.params, 'accountType only support UNIFIED.');
        }
        return this.unifiedWallet();
      case 'GET /v5/account/fee-rate': {
        const cat = this.category(p);
        const markets = p.get('symbol') ? [this.marketOf(cat, p)] : this.markets(cat);
        return {
          list: markets.map((m) => ({
            symbol: bybitId(m),
            takerFeeRate: s(m.taker),
            makerFeeRate: s(m.maker),
          })),
        };
      }
      case 'POST /v5/order/create':
        return this.createOrder(p, fault);
      case 'POST /v5/order/cancel':
        return this.cancel(p);
      case 'GET /v5/order/realtime':
        return this.listOrders(p, 'open');
      case 'GET /v5/order/history':
        return this.listOrders(p, 'history');
      case 'GET /v5/execution/list':
        return this.executions(p);
      case 'GET /v5/position/list':
        return this.positions(p);
      case 'POST /v5/position/set-leverage':
        return this.setLeverage(p);
      default:
        throw new BybitError(BYBIT.params, `Route not found: ${key}`, 404);
    }
  }

  // --- markets and account -------------------------------------------------------------------------

  private category(p: URLSearchParams): Category {
    const c = p.get('category');
    if (c === 'spot' || c === 'linear') return c;
    throw new BybitError(BYBIT.params, 'Illegal category');
  }

  /** Spot pairs, or the USDT-settled linear perpetuals, of the simulated 'bybit' exchange. */
  private markets(cat: Category): Market[] {
    if (cat === 'spot') return Object.values(this.simulator.markets('bybit'));
    return Object.values(this.simulator.markets('bybit', { swaps: true })).filter(
      (m) => m.type === 'swap' && m.linear === true && m.settle === 'USDT',
    );
  }

  private marketOf(cat: Category, p: URLSearchParams): Market {
    const id = p.get('symbol') ?? '';
    const m = this.markets(cat).find((x) => bybitId(x) === id);
    if (!m) {
      if (cat === 'spot') throw new BybitError(BYBIT.spotBadSymbol, 'Invalid symbol.');
      throw new BybitError(BYBIT.params, 'params error: symbol invalid');
    }
    return m;
  }

  private async funding(m: Market): Promise<{ rate: number; next: number }> {
    const f = await this.venue.fetchFundingRate(m.symbol);
    return { rate: f.rate, next: f.nextFundingTime };
  }

  /** The unified wallet: the paper spot and derivatives wallets summed per coin. */
  private async unifiedWallet(): Promise<unknown> {
    const spot = await this.venue.fetchBalance();
    const deriv = await this.venue.fetchBalance({ type: 'swap' });
    const positions = await this.venue.fetchPositions();
    const upnl = positions.reduce((a, x) => a + x.unrealizedPnl, 0);
    return walletBalance(spot, deriv, upnl);
  }

  /**
   * Moves the free `coin` of the other paper wallet into `to` (the one an order trades from), so the
   * two paper wallets act as Bybit's one unified wallet.
   */
  private async pool(coin: string, to: TransferWallet): Promise<void> {
    const from: TransferWallet = to === 'spot' ? 'swap' : 'spot';
    const other = await this.venue.fetchBalance(from === 'swap' ? { type: 'swap' } : undefined);
    const free = other[coin]?.free ?? 0;
    if (free > 1e-9) await this.venue.transfer(coin, free, from, to);
  }

  // --- orders --------------------------------------------------------------------------------------

  private async createOrder(p: URLSearchParams, fault: FaultKind | null): Promise<unknown> {
    const cat = this.category(p);
    const m = this.marketOf(cat, p);
    const side = p.get('side') === 'Buy' ? 'buy' : p.get('side') === 'Sell' ? 'sell' : null;
    const type = p.get('orderType') === 'Market' ? 'market' : p.get('orderType') === 'Limit' ? 'limit' : null;
    if (!side) throw new BybitError(BYBIT.params, 'params error: side invalid');
    if (!type) throw new BybitError(BYBIT.params, 'params error: orderType invalid');
    const price = type === 'limit' ? Number(p.get('price')) : null;
    if (price !== null && !(price > 0)) throw new BybitError(BYBIT.params, 'params error: price invalid');
    let amount = Number(p.get('qty'));
    if (!(amount > 0)) throw new BybitError(BYBIT.params, 'params error: qty invalid');
    const refPrice = price ?? this.simulator.price('bybit', m.symbol);
    // Spot market orders: qty in the quote coin with marketUnit=quoteCoin (ccxt's default for a buy
    // with a price), else in the base coin.
    if (cat === 'spot' && type === 'market' && p.get('marketUnit') === 'quoteCoin') {
      amount = floorStep(amount / refPrice, m.amountStep);
    }
    const orderLinkId = p.get('orderLinkId') ?? '';
    if (orderLinkId !== '' && !/^[A-Za-z0-9_-]{1,36}$/.test(orderLinkId)) {
      throw new BybitError(BYBIT.params, 'params error: orderLinkId invalid');
    }
    // Bybit refuses an orderLinkId in use: a second placement of one order is counted, never executed.
    if (orderLinkId !== '' && this.byLinkId.has(orderLinkId)) {
      this.duplicateAttempts += 1;
      if (cat === 'spot') throw new BybitError(BYBIT.spotDuplicateLink, 'Duplicate clientOrderId.');
      throw new BybitError(BYBIT.duplicateLink, 'OrderLinkedID is duplicate');
    }
    if (amount < Math.max(m.minAmount, m.amountStep) - 1e-12) {
      if (cat === 'spot') throw new BybitError(BYBIT.spotMinQty, 'Order quantity lower than the minimum.');
      throw new BybitError(BYBIT.params, 'The number of contracts below min limit allowed');
    }
    const reduceOnly = p.get('reduceOnly') === 'true';
    if (amount * refPrice < m.minCost && !reduceOnly) {
      if (cat === 'spot') throw new BybitError(BYBIT.spotMinValue, 'Order value exceeded lower limit.');
      throw new BybitError(BYBIT.minValue, 'Order does not meet minimum order value 5USDT');
    }
    if (cat === 'linear') await this.pool(m.settle ?? 'USDT', 'swap');
    else await this.pool(side === 'buy' ? m.quote : m.base, 'spot');
    const share = fault === 'partial-fill' ? this.settings.partialShare : 1;
    const first = floorStep(amount * share, m.amountStep);
    const orderId = String(this.nextOrderId++);
    let leg: Order;
    try {
      leg = await this.venue.createOrder({
        symbol: m.symbol,
        side,
        type,
        amount: first,
        ...(price !== null ? { price } : {}),
        ...(reduceOnly ? { reduceOnly: true } : {}),
        clientOrderId: orderLinkId || `emu-${orderId}`,
      });
    } catch (err) {
      throw toBybitError(err, cat);
    }
    const o: EmuOrder = {
      orderId,
      orderLinkId,
      category: cat,
      market: m,
      side,
      type,
      price,
      amount,
      reduceOnly,
      legs: [leg.id],
      withheld: amount - first > 1e-12 ? amount - first : 0,
      canceled: false,
      time: this.now(),
      hideUntil: fault === 'late-fill' ? Date.now() + this.settings.lateMs : 0,
      unknownLookups: fault === 'unknown-order' ? this.settings.unknownLookups : 0,
    };
    this.orders.set(orderId, o);
    if (orderLinkId !== '') this.byLinkId.set(orderLinkId, orderId);
    // Bybit acknowledges a create with the ids only; the state is read with the order queries.
    return { orderId, orderLinkId };
  }

  /** The order named by orderId or orderLinkId in `cat`, or undefined. */
  private find(cat: Category, p: URLSearchParams): EmuOrder | undefined {
    const byId = p.get('orderId');
    const byLink = p.get('orderLinkId');
    const id = byId ?? (byLink !== null ? this.byLinkId.get(byLink) : undefined);
    const o = id === undefined ? undefined : this.orders.get(id);
    return o && o.category === cat ? o : undefined;
  }

  private async cancel(p: URLSearchParams): Promise<unknown> {
    const cat = this.category(p);
    const m = this.marketOf(cat, p);
    if (p.get('orderId') === null && p.get('orderLinkId') === null) {
      throw new BybitError(BYBIT.params, 'params error: orderId or orderLinkId is required');
    }
    const o = this.find(cat, p);
    const notExists = () =>
      cat === 'spot'
        ? new BybitError(BYBIT.spotOrderNotExists, 'Order does not exist.')
        : new BybitError(BYBIT.orderNotExists, 'order not exists or too late to cancel');
    if (!o || o.market.symbol !== m.symbol) throw notExists();
    const before = await this.view(o, true);
    if (!OPEN.has(before.status)) throw notExists();
    for (const leg of o.legs) {
      const l = await this.venue.fetchOrder(leg, o.market.symbol);
      if (l.status === 'open') await this.venue.cancelOrder(leg, o.market.symbol);
    }
    o.canceled = true;
    o.withheld = 0;
    o.hideUntil = 0;
    return { orderId: o.orderId, orderLinkId: o.orderLinkId };
  }

  /**
   * GET /v5/order/realtime ('open': orders New or PartiallyFilled) and GET /v5/order/history
   * ('history': every finished one), newest first, filtered by symbol, orderId, orderLinkId and
   * orderStatus. An order under 'unknown-order' is left out of lookups by id while its count lasts
   * (Bybit answers an empty list, not an error, for an id it does not know).
   */
  private async listOrders(p: URLSearchParams, which: 'open' | 'history'): Promise<unknown> {
    const cat = this.category(p);
    const symbol = p.get('symbol') ? this.marketOf(cat, p).symbol : null;
    const byKey = p.get('orderId') !== null || p.get('orderLinkId') !== null;
    const candidates = byKey
      ? [this.find(cat, p)].filter((o): o is EmuOrder => o !== undefined)
      : [...this.orders.values()];
    const status = p.get('orderStatus');
    const limit = Math.min(50, Number(p.get('limit') ?? 20) || 20);
    const list = [];
    // Pages of `limit` (Bybit: default 20, at most 50); nextPageCursor names the next one.
    const from = Number(p.get('cursor') ?? 0) || 0;
    let matched = 0;
    let more = false;
    for (const o of candidates.reverse()) {
      if (o.category !== cat || (symbol !== null && o.market.symbol !== symbol)) continue;
      if (byKey && o.unknownLookups > 0) {
        o.unknownLookups -= 1;
        continue;
      }
      const v = await this.view(o, false);
      const open = OPEN.has(v.status);
      // openOnly=1 on realtime: the recent finished orders too (Bybit keeps the last 500 there).
      if (which === 'history' ? open : !open && p.get('openOnly') !== '1') continue;
      if (status !== null && v.status !== status) continue;
      matched += 1;
      if (matched <= from) continue;
      if (list.length >= limit) {
        more = true;
        break;
      }
      list.push(orderObject(o, v));
    }
    return { category: cat, list, nextPageCursor: more ? String(from + limit) : '' };
  }

  /** The order's state from its legs; `truth` ignores a hidden (late) fill. */
  private async view(o: EmuOrder, truth: boolean): Promise<View> {
    let filled = 0;
    let cost = 0;
    let fee = 0;
    let feeCurrency =
      o.category === 'linear'
        ? (o.market.settle ?? 'USDT')
        : o.side === 'buy'
          ? o.market.base
          : o.market.quote;
    let allClosed = true;
    let updated = o.time;
    let lost = false;
    for (const id of o.legs) {
      const l = await this.venue.fetchOrder(id, o.market.symbol);
      filled += l.filled;
      cost += l.cost;
      if (l.fee) {
        fee += l.fee.cost;
        feeCurrency = l.fee.currency;
      }
      updated = Math.max(updated, l.lastUpdateTimestamp ?? l.timestamp);
      if (l.status === 'open') allClosed = false;
      else if (l.status !== 'closed') lost = true;
    }
    let status: BybitStatus;
    if (o.canceled || lost) status = filled > 0 ? 'PartiallyFilledCanceled' : 'Cancelled';
    else if (allClosed && o.withheld === 0) status = 'Filled';
    // A market order's unfilled remainder is cancelled (Bybit's market orders are IOC).
    else if (allClosed && o.type === 'market') status = 'PartiallyFilledCanceled';
    else status = filled > 0 ? 'PartiallyFilled' : 'New';
    if (!truth && Date.now() < o.hideUntil && !o.canceled) {
      return { status: 'New', filled: 0, cost: 0, fee: 0, feeCurrency, updated: o.time };
    }
    return { status, filled, cost, fee, feeCurrency, updated };
  }

  /** GET /v5/execution/list: one execution per filled paper leg. */
  private async executions(p: URLSearchParams): Promise<unknown> {
    const cat = this.category(p);
    const symbol = p.get('symbol') ? this.marketOf(cat, p).symbol : null;
    const list = [];
    for (const o of [...this.orders.values()].reverse()) {
      if (o.category !== cat || (symbol !== null && o.market.symbol !== symbol) || Date.now() < o.hideUntil)
        continue;
      if (p.get('orderId') !== null && p.get('orderId') !== o.orderId) continue;
      for (const [i, id] of o.legs.entries()) {
        const l = await this.venue.fetchOrder(id, o.market.symbol);
        if (!(l.filled > 0)) continue;
        list.push({
          symbol: bybitId(o.market),
          orderId: o.orderId,
          orderLinkId: o.orderLinkId,
          side: o.side === 'buy' ? 'Buy' : 'Sell',
          orderPrice: s(o.price ?? 0),
          orderQty: s(o.amount),
          leavesQty: '0',
          orderType: o.type === 'market' ? 'Market' : 'Limit',
          stopOrderType: '',
          execFee: s(l.fee?.cost ?? 0),
          feeCurrency: l.fee?.currency ?? '',
          execId: `${o.orderId}-${i + 1}`,
          execPrice: s(l.average ?? 0),
          execQty: s(l.filled),
          execType: 'Trade',
          execValue: s(l.cost),
          execTime: String(l.lastUpdateTimestamp ?? l.timestamp),
          isMaker: false,
          feeRate: s(o.market.taker),
          markPrice: s(l.average ?? 0),
          closedSize: '',
          seq: 1,
        });
      }
    }
    return { category: cat, list, nextPageCursor: '' };
  }

  // --- positions -----------------------------------------------------------------------------------

  private async positions(p: URLSearchParams): Promise<unknown> {
    const cat = this.category(p);
    if (cat !== 'linear') throw new BybitError(BYBIT.params, 'Illegal category');
    const now = this.now();
    if (p.get('symbol')) {
      const m = this.marketOf('linear', p);
      const [pos] = await this.venue.fetchPositions([m.symbol]);
      const lev = await this.venue.fetchLeverage(m.symbol);
      return { category: 'linear', list: [position(m, pos ?? null, lev, now)], nextPageCursor: '' };
    }
    const settle = p.get('settleCoin');
    const list = [];
    for (const pos of await this.venue.fetchPositions()) {
      const m = this.markets('linear').find((x) => x.symbol === pos.symbol);
      if (!m || (settle !== null && m.settle !== settle)) continue;
      list.push(position(m, pos, pos.leverage, now));
    }
    return { category: 'linear', list, nextPageCursor: '' };
  }

  private async setLeverage(p: URLSearchParams): Promise<unknown> {
    if (this.category(p) !== 'linear') throw new BybitError(BYBIT.params, 'Illegal category');
    const m = this.marketOf('linear', p);
    const buy = Number(p.get('buyLeverage'));
    const sell = Number(p.get('sellLeverage'));
    if (!(buy > 0) || buy !== sell) throw new BybitError(BYBIT.params, 'buy leverage invalid');
    if ((await this.venue.fetchLeverage(m.symbol)) === buy) {
      throw new BybitError(BYBIT.leverageNotModified, 'leverage not modified');
    }
    try {
      await this.venue.setLeverage(buy, m.symbol);
    } catch (err) {
      throw toBybitError(err, 'linear');
    }
    return {};
  }
}

/** Our matching engine's refusals in Bybit's codes (spot 170xxx, derivatives 110xxx). */
function toBybitError(err: unknown, cat: Category): Error {
  if (err instanceof InsufficientFundsError) {
    return cat === 'spot'
      ? new BybitError(BYBIT.spotInsufficient, 'Insufficient balance.')
      : new BybitError(BYBIT.insufficient, 'ab not enough for new order');
  }
  if (err instanceof InvalidOrderError) {
    if (err.reason === 'min_cost') {
      return cat === 'spot'
        ? new BybitError(BYBIT.spotMinValue, 'Order value exceeded lower limit.')
        : new BybitError(BYBIT.minValue, 'Order does not meet minimum order value 5USDT');
    }
    return new BybitError(BYBIT.params, `params error: ${err.message}`);
  }
  return err instanceof Error ? err : new Error(String(err));
}

function floorStep(v: number, step: number): number {
  if (!(step > 0)) return v;
  const n = Math.floor(v / step + 1e-9);
  return Number((n * step).toFixed(12));
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
