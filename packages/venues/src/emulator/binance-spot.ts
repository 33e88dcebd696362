import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { InsufficientFundsError, InvalidOrderError, OrderNotFoundError } from '../errors';
import { MemoryPaperStore, PaperVenue } from '../paper-venue';
import { MarketSimulator, SimulatedMarketData } from '../simulator';
import type { Market, Order } from '../types';
import { BinanceUsdmHandler, USDM_ORDER_PATH } from './binance-usdm';
import { DEFAULT_FAULT_SETTINGS, FaultPlan, type FaultKind, type FaultSettings } from './faults';
import {
  BinanceError,
  authenticate,
  dec,
  floorTo,
  readBody,
  send,
  skewError,
  type LedgerEntry,
  type Security,
} from './http';

/**
 * A localhost Binance spot REST server (the subset ccxt's `binance` calls for the platform's Venue
 * methods), backed by our paper matching engine (PaperVenue on a MarketSimulator), with faults on
 * demand. The real CcxtVenue + ccxt trade against it with ccxt's `urls.api` pointed here
 * (`ccxtUrls()`). Wire format: https://developers.binance.com/docs/binance-spot-api-docs/rest-api
 * Error codes: https://developers.binance.com/docs/binance-spot-api-docs/errors
 * The same server answers Binance USDⓈ-M futures (/fapi) on the account's derivatives wallet:
 * binance-usdm.ts (`usdm`), with the same key, clock and faults.
 */

export const EMULATOR_API_KEY = 'emulator-test-key';
export const EMULATOR_SECRET = 'emulator-test-secret';

export interface BinanceEmulatorOptions {
  /** Prices and markets (the 'binance' exchange of the simulator); a fresh one by default. */
  simulator?: MarketSimulator;
  apiKey?: string;
  secret?: string;
  /** The account's starting balances (default 10,000 USDT). */
  initialBalances?: Record<string, number>;
  /** The USDⓈ-M futures wallet's starting balances (default PaperVenue's: 10,000 USDT, 0.1 BTC, 3 ETH). */
  initialFuturesBalances?: Record<string, number>;
  /** Seed of the random faults (replayable runs). */
  seed?: number;
  faults?: Partial<FaultSettings>;
}

/** One Binance order: its paper legs (two after a withheld remainder is released). */
interface EmuOrder {
  orderId: number;
  clientOrderId: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price: number | null;
  amount: number;
  legs: string[];
  /** Amount held back by a 'partial-fill' fault (not yet sent to the matching engine). */
  withheld: number;
  canceled: boolean;
  time: number;
  /** 'late-fill': until then reads show the order as NEW and unfilled (ms epoch). */
  hideUntil: number;
  /** 'unknown-order': lookups still answered -2013. */
  unknownLookups: number;
}

/** Our order state in Binance's words (ORDER_STATUS). */
type BinanceStatus = 'NEW' | 'PARTIALLY_FILLED' | 'FILLED' | 'CANCELED' | 'EXPIRED';

export class BinanceSpotEmulator {
  readonly simulator: MarketSimulator;
  readonly venue: PaperVenue;
  readonly faults: FaultPlan;
  readonly settings: FaultSettings;
  /** Server clock minus the real clock (ms): a skew the client must learn from GET /api/v3/time. */
  clockOffsetMs = 0;
  /** Requests answered, faulted or not (all paths). */
  requests = 0;
  /** The last requests (method, path and the fault applied), newest last; at most 200 kept. */
  readonly requestLog: { method: string; path: string; fault: FaultKind | null }[] = [];
  /** Creations refused because the client id was already used (a second placement attempt). */
  duplicateAttempts = 0;
  private readonly apiKey: string;
  private readonly secret: string;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly held = new Set<ServerResponse>();
  private readonly orders = new Map<number, EmuOrder>();
  private readonly byClientId = new Map<string, number>();
  private nextOrderId = 1_000_001;
  /** The USDⓈ-M futures REST (/fapi) on the same account, server, clock and faults. */
  readonly usdm: BinanceUsdmHandler;
  private port = 0;

  constructor(opts: BinanceEmulatorOptions = {}) {
    this.simulator = opts.simulator ?? new MarketSimulator();
    this.apiKey = opts.apiKey ?? EMULATOR_API_KEY;
    this.secret = opts.secret ?? EMULATOR_SECRET;
    this.faults = new FaultPlan(opts.seed ?? 1);
    this.settings = { ...DEFAULT_FAULT_SETTINGS, ...opts.faults };
    this.venue = new PaperVenue({
      accountId: 'binance-emulator',
      feed: new SimulatedMarketData(this.simulator, 'binance'),
      store: new MemoryPaperStore(),
      ...(opts.initialBalances ? { initialBalances: opts.initialBalances } : {}),
      ...(opts.initialFuturesBalances ? { initialDerivativesBalances: opts.initialFuturesBalances } : {}),
    });
    this.usdm = new BinanceUsdmHandler({
      simulator: this.simulator,
      venue: this.venue,
      settings: this.settings,
      now: () => this.now(),
      onDuplicate: () => {
        this.duplicateAttempts += 1;
      },
    });
    this.server = createServer((req, res) => {
      void this.handle(req, res);
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
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

  /**
   * ccxt's `urls.api` for binance with every entry pointed at this server, path kept
   * (`https://api.binance.com/api/v3` → `http://127.0.0.1:<port>/api/v3`).
   */
  ccxtUrls(original: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(original)) out[k] = this.baseUrl + new URL(v).pathname;
    return out;
  }

  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    for (const s of this.sockets) s.destroy();
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
      // A market order's withheld rest expired at its creation (status EXPIRED, a final state Binance
      // never leaves): releasing it would fill an order the client already settled as ended.
      if (o.withheld <= 0 || o.canceled || o.type === 'market') continue;
      const amount = o.withheld;
      o.withheld = 0;
      const leg = await this.venue.createOrder({
        symbol: o.symbol,
        side: o.side,
        type: o.type,
        amount,
        ...(o.price !== null ? { price: o.price } : {}),
        clientOrderId: `${o.clientOrderId}#${o.legs.length + 1}`,
      });
      o.legs.push(leg.id);
    }
    await this.usdm.releaseWithheld();
  }

  /** Every order the exchange holds (spot, then USDⓈ-M futures), with its fill. */
  async ledger(): Promise<LedgerEntry[]> {
    const out: LedgerEntry[] = [];
    for (const o of this.orders.values()) {
      const v = await this.view(o, true);
      out.push({
        orderId: String(o.orderId),
        clientOrderId: o.clientOrderId,
        symbol: o.symbol,
        market: 'spot',
        side: o.side,
        amount: o.amount,
        filled: v.filled,
        status:
          v.status === 'CANCELED' || v.status === 'EXPIRED'
            ? 'canceled'
            : v.status === 'FILLED'
              ? 'closed'
              : 'open',
      });
    }
    return [...out, ...(await this.usdm.ledger())];
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
      const isCreate =
        method === 'POST' && (url.pathname === '/api/v3/order' || url.pathname === USDM_ORDER_PATH);
      const fault = this.faults.next(isCreate);
      this.requestLog.push({ method, path: url.pathname, fault });
      if (this.requestLog.length > 200) this.requestLog.shift();
      if (fault === 'timeout') {
        this.held.add(res);
        res.on('close', () => this.held.delete(res));
        return;
      }
      if (fault === 'server-error') return send(res, 503, { code: -1001, msg: 'Service Unavailable.' });
      if (fault === 'rate-limit') {
        res.setHeader('Retry-After', String(this.settings.retryAfterS));
        return send(res, 429, {
          code: -1003,
          msg: 'Too much request weight used; current limit is 6000 request weight per 1 MINUTE.',
        });
      }
      const query = url.search.length > 1 ? url.search.slice(1) : '';
      const params = new URLSearchParams(query);
      for (const [k, v] of new URLSearchParams(body)) params.set(k, v);
      const futures = this.usdm.handles(url.pathname);
      const security: Security = futures
        ? this.usdm.security(url.pathname)
        : url.pathname !== '/api/v3/exchangeInfo' && isSigned(url.pathname)
          ? 'SIGNED'
          : 'NONE';
      if (security === 'SIGNED' && fault === 'clock-skew') throw skewError();
      authenticate(
        req,
        security,
        { query, body, params },
        { apiKey: this.apiKey, secret: this.secret },
        this.now(),
      );
      const answer = futures
        ? await this.usdm.route(method, url.pathname, params, isCreate ? fault : null)
        : await this.route(method, url.pathname, params, isCreate ? fault : null);
      if (fault === 'drop-after-accept' && isCreate) {
        // Accepted and kept, but the answer never arrives: the socket is cut.
        req.socket.destroy();
        return;
      }
      send(res, 200, answer);
    } catch (err) {
      if (err instanceof BinanceError) return send(res, err.http, { code: err.code, msg: err.message });
      send(res, 500, { code: -1000, msg: `An unknown error occurred: ${(err as Error).message}` });
    }
  }

  private async route(
    method: string,
    path: string,
    p: URLSearchParams,
    fault: FaultKind | null,
  ): Promise<unknown> {
    const key = `${method} ${path}`;
    switch (key) {
      case 'GET /api/v3/ping':
        return {};
      case 'GET /api/v3/time':
        return { serverTime: this.now() };
      case 'GET /api/v3/exchangeInfo':
        return this.exchangeInfo();
      // COIN-M (dapi) is not emulated: its list, which ccxt loads beside USDⓈ-M, is empty.
      case 'GET /dapi/v1/exchangeInfo':
        return {
          timezone: 'UTC',
          serverTime: this.now(),
          rateLimits: [],
          exchangeFilters: [],
          assets: [],
          symbols: [],
        };
      case 'GET /api/v3/ticker/24hr':
        return this.ticker(this.symbolOf(p));
      case 'GET /api/v3/depth': {
        const symbol = this.symbolOf(p);
        const b = this.simulator.orderBook('binance', symbol, Number(p.get('limit') ?? 100));
        const lv = (l: [number, number][]) => l.map(([px, q]) => [dec(px), dec(q)]);
        return { lastUpdateId: b.timestamp, bids: lv(b.bids), asks: lv(b.asks) };
      }
      case 'GET /api/v3/klines': {
        const symbol = this.symbolOf(p);
        const rows = this.simulator.candles(
          'binance',
          symbol,
          (p.get('interval') ?? '1m') as never,
          p.get('startTime') ? Number(p.get('startTime')) : undefined,
          Number(p.get('limit') ?? 500),
        );
        return rows.map((c) => [
          c[0],
          dec(c[1]),
          dec(c[2]),
          dec(c[3]),
          dec(c[4]),
          dec(c[5]),
          c[0] + 59_999,
          '0',
          0,
          '0',
          '0',
          '0',
        ]);
      }
      case 'GET /api/v3/account':
        return this.account();
      case 'GET /sapi/v1/account/apiRestrictions':
        return {
          ipRestrict: false,
          createTime: this.now(),
          enableWithdrawals: false,
          enableReading: true,
          enableSpotAndMarginTrading: true,
          enableFutures: false,
          enableMargin: false,
          permitsUniversalTransfer: false,
        };
      case 'POST /api/v3/order':
        return this.createOrder(p, fault);
      case 'GET /api/v3/order':
        return this.wire(await this.find(p, true));
      case 'DELETE /api/v3/order':
        return this.cancel(p);
      case 'GET /api/v3/openOrders': {
        const symbol = p.get('symbol') ? this.symbolOf(p) : null;
        const out = [];
        for (const o of this.orders.values()) {
          if (symbol !== null && o.symbol !== symbol) continue;
          const f = await this.wire(o);
          if (f.status === 'NEW' || f.status === 'PARTIALLY_FILLED') out.push(f);
        }
        return out;
      }
      case 'GET /api/v3/allOrders': {
        const symbol = this.symbolOf(p);
        const out = [];
        for (const o of this.orders.values()) if (o.symbol === symbol) out.push(await this.wire(o));
        return out.slice(-Number(p.get('limit') ?? 500));
      }
      case 'GET /api/v3/myTrades':
        return this.myTrades(this.symbolOf(p), p.get('orderId'));
      default:
        throw new BinanceError(404, -1100, `Unknown endpoint ${key}`);
    }
  }

  // --- markets and account -------------------------------------------------------------------------

  private markets(): Market[] {
    return Object.values(this.simulator.markets('binance'));
  }

  private symbolOf(p: URLSearchParams): string {
    const id = p.get('symbol') ?? '';
    const m = this.markets().find((x) => x.base + x.quote === id);
    if (!m) throw new BinanceError(400, -1121, 'Invalid symbol.');
    return m.symbol;
  }

  private idOf(symbol: string): string {
    return symbol.replace('/', '');
  }

  private exchangeInfo(): unknown {
    return {
      timezone: 'UTC',
      serverTime: this.now(),
      rateLimits: [{ rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 6000 }],
      exchangeFilters: [],
      symbols: this.markets().map((m) => ({
        symbol: this.idOf(m.symbol),
        status: m.active ? 'TRADING' : 'BREAK',
        baseAsset: m.base,
        baseAssetPrecision: 8,
        quoteAsset: m.quote,
        quotePrecision: 8,
        quoteAssetPrecision: 8,
        baseCommissionPrecision: 8,
        quoteCommissionPrecision: 8,
        orderTypes: ['LIMIT', 'LIMIT_MAKER', 'MARKET', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT'],
        icebergAllowed: true,
        ocoAllowed: true,
        quoteOrderQtyMarketAllowed: true,
        allowTrailingStop: true,
        cancelReplaceAllowed: true,
        isSpotTradingAllowed: true,
        isMarginTradingAllowed: false,
        filters: [
          {
            filterType: 'PRICE_FILTER',
            minPrice: dec(m.priceStep),
            maxPrice: '1000000.00000000',
            tickSize: dec(m.priceStep),
          },
          {
            filterType: 'LOT_SIZE',
            minQty: dec(Math.max(m.minAmount, m.amountStep)),
            maxQty: '9000000.00000000',
            stepSize: dec(m.amountStep),
          },
          {
            filterType: 'NOTIONAL',
            minNotional: dec(m.minCost),
            applyMinToMarket: true,
            maxNotional: '9000000.00000000',
            applyMaxToMarket: false,
            avgPriceMins: 5,
          },
        ],
        permissions: [],
        permissionSets: [['SPOT']],
        defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
        allowedSelfTradePreventionModes: ['EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH'],
      })),
    };
  }

  private ticker(symbol: string): unknown {
    const t = this.simulator.ticker('binance', symbol);
    const last = t.last;
    const pct = t.percentage ?? 0;
    const open = last / (1 + pct / 100);
    return {
      symbol: this.idOf(symbol),
      priceChange: dec(last - open),
      priceChangePercent: pct.toFixed(3),
      weightedAvgPrice: dec(last),
      prevClosePrice: dec(open),
      lastPrice: dec(last),
      lastQty: '0.00000000',
      bidPrice: dec(t.bid ?? last),
      bidQty: '1.00000000',
      askPrice: dec(t.ask ?? last),
      askQty: '1.00000000',
      openPrice: dec(open),
      highPrice: dec(Math.max(open, last)),
      lowPrice: dec(Math.min(open, last)),
      volume: '0.00000000',
      quoteVolume: '0.00000000',
      openTime: t.timestamp - 86_400_000,
      closeTime: t.timestamp,
      firstId: 0,
      lastId: 0,
      count: 0,
    };
  }

  private async account(): Promise<unknown> {
    const b = await this.venue.fetchBalance();
    return {
      makerCommission: 10,
      takerCommission: 10,
      buyerCommission: 0,
      sellerCommission: 0,
      canTrade: true,
      canWithdraw: false,
      canDeposit: true,
      brokered: false,
      requireSelfTradePrevention: false,
      updateTime: this.now(),
      accountType: 'SPOT',
      balances: Object.entries(b).map(([asset, v]) => ({ asset, free: dec(v.free), locked: dec(v.used) })),
      permissions: ['SPOT'],
    };
  }

  // --- orders --------------------------------------------------------------------------------------

  private async createOrder(p: URLSearchParams, fault: FaultKind | null): Promise<unknown> {
    const symbol = this.symbolOf(p);
    const side = p.get('side') === 'SELL' ? 'sell' : p.get('side') === 'BUY' ? 'buy' : null;
    const type = p.get('type') === 'MARKET' ? 'market' : p.get('type') === 'LIMIT' ? 'limit' : null;
    if (!side)
      throw new BinanceError(
        400,
        -1102,
        "Mandatory parameter 'side' was not sent, was empty/null, or malformed.",
      );
    if (!type) throw new BinanceError(400, -1116, 'Invalid orderType.');
    const amount = Number(p.get('quantity'));
    const price = type === 'limit' ? Number(p.get('price')) : null;
    if (!(amount > 0)) throw new BinanceError(400, -1013, 'Filter failure: LOT_SIZE');
    if (price !== null && !(price > 0)) throw new BinanceError(400, -1013, 'Filter failure: PRICE_FILTER');
    const clientOrderId = p.get('newClientOrderId') ?? `emu${this.nextOrderId}`;
    // Binance refuses a client id in use ("Duplicate order sent.", -2010): a second placement of one
    // order is counted, never executed.
    if (this.byClientId.has(clientOrderId)) {
      this.duplicateAttempts += 1;
      throw new BinanceError(400, -2010, 'Duplicate order sent.');
    }
    const m = this.simulator.market('binance', symbol);
    const refPrice = price ?? this.simulator.price('binance', symbol);
    if (amount * refPrice < m.minCost) throw new BinanceError(400, -1013, 'Filter failure: NOTIONAL');
    const share = fault === 'partial-fill' ? this.settings.partialShare : 1;
    const first = floorTo(amount * share, m.amountStep);
    let leg: Order;
    try {
      leg = await this.venue.createOrder({
        symbol,
        side,
        type,
        amount: first,
        ...(price !== null ? { price } : {}),
        clientOrderId,
      });
    } catch (err) {
      throw toBinanceError(err);
    }
    const o: EmuOrder = {
      orderId: this.nextOrderId++,
      clientOrderId,
      symbol,
      side,
      type,
      price,
      amount,
      legs: [leg.id],
      withheld: amount - first > 1e-12 ? amount - first : 0,
      canceled: false,
      time: this.now(),
      hideUntil: fault === 'late-fill' ? Date.now() + this.settings.lateMs : 0,
      unknownLookups: fault === 'unknown-order' ? this.settings.unknownLookups : 0,
    };
    this.orders.set(o.orderId, o);
    this.byClientId.set(clientOrderId, o.orderId);
    const f = await this.format(o);
    const fills =
      f.executedQty !== '0.00000000' && o.hideUntil <= Date.now()
        ? [
            {
              price: f.avg,
              qty: f.executedQty,
              commission: dec(f.fee),
              commissionAsset: f.feeCurrency,
              tradeId: o.orderId,
            },
          ]
        : [];
    const { avg: _a, fee: _f, feeCurrency: _c, ...wire } = f;
    return { ...wire, transactTime: o.time, fills };
  }

  /** The order named by orderId or origClientOrderId; -2013 when there is none. */
  private async find(p: URLSearchParams, lookup: boolean): Promise<EmuOrder> {
    const symbol = this.symbolOf(p);
    const byId = p.get('orderId');
    const byClient = p.get('origClientOrderId');
    if (byId === null && byClient === null) {
      throw new BinanceError(
        400,
        -1102,
        "Param 'origClientOrderId' or 'orderId' must be sent, but both were empty/null!",
      );
    }
    const id = byId !== null ? Number(byId) : this.byClientId.get(byClient ?? '');
    const o = id === undefined ? undefined : this.orders.get(id);
    if (!o || o.symbol !== symbol) throw new BinanceError(400, -2013, 'Order does not exist.');
    if (lookup && o.unknownLookups > 0) {
      o.unknownLookups -= 1;
      throw new BinanceError(400, -2013, 'Order does not exist.');
    }
    return o;
  }

  private async cancel(p: URLSearchParams): Promise<unknown> {
    let o: EmuOrder;
    try {
      o = await this.find(p, false);
    } catch (err) {
      // Binance answers a cancel of an unknown order -2011 "Unknown order sent.".
      if (err instanceof BinanceError && err.code === -2013)
        throw new BinanceError(400, -2011, 'Unknown order sent.');
      throw err;
    }
    const before = await this.view(o, true);
    if (before.status !== 'NEW' && before.status !== 'PARTIALLY_FILLED') {
      throw new BinanceError(400, -2011, 'Unknown order sent.');
    }
    for (const leg of o.legs) {
      const l = await this.venue.fetchOrder(leg, o.symbol);
      if (l.status === 'open') await this.venue.cancelOrder(leg, o.symbol);
    }
    o.canceled = true;
    o.withheld = 0;
    o.hideUntil = 0;
    const { avg: _a, fee: _f, feeCurrency: _c, clientOrderId, ...wire } = await this.format(o);
    return { ...wire, origClientOrderId: clientOrderId, clientOrderId: `cancel${o.orderId}` };
  }

  /** The order's state from its legs; `truth` ignores a hidden (late) fill. */
  private async view(
    o: EmuOrder,
    truth: boolean,
  ): Promise<{
    status: BinanceStatus;
    filled: number;
    cost: number;
    fee: number;
    feeCurrency: string;
    updated: number;
  }> {
    let filled = 0;
    let cost = 0;
    let fee = 0;
    let feeCurrency = o.side === 'buy' ? (o.symbol.split('/')[0] ?? '') : (o.symbol.split('/')[1] ?? '');
    let allClosed = true;
    let updated = o.time;
    let lost = false;
    for (const id of o.legs) {
      const l = await this.venue.fetchOrder(id, o.symbol);
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
    let status: BinanceStatus;
    if (o.canceled || lost) status = 'CANCELED';
    else if (allClosed && o.withheld === 0) status = 'FILLED';
    else if (allClosed && o.type === 'market') status = 'EXPIRED';
    else status = filled > 0 ? 'PARTIALLY_FILLED' : 'NEW';
    if (!truth && Date.now() < o.hideUntil && status !== 'CANCELED') {
      return { status: 'NEW', filled: 0, cost: 0, fee: 0, feeCurrency, updated: o.time };
    }
    return { status, filled, cost, fee, feeCurrency, updated };
  }

  /**
   * Binance's order object as GET /api/v3/order and the open/all lists send it: no commission and no
   * average (only the create reply's `fills` and GET /api/v3/myTrades carry them).
   */
  private async wire(o: EmuOrder) {
    const { avg: _a, fee: _f, feeCurrency: _c, ...wire } = await this.format(o);
    return wire;
  }

  /** Binance's order object (GET /api/v3/order shape), plus the average and fee the emulator keeps. */
  private async format(o: EmuOrder) {
    const v = await this.view(o, false);
    return {
      symbol: this.idOf(o.symbol),
      orderId: o.orderId,
      orderListId: -1,
      clientOrderId: o.clientOrderId,
      price: dec(o.price ?? 0),
      origQty: dec(o.amount),
      executedQty: dec(v.filled),
      cummulativeQuoteQty: dec(v.cost),
      status: v.status,
      timeInForce: o.type === 'limit' ? 'GTC' : 'GTC',
      type: o.type === 'limit' ? 'LIMIT' : 'MARKET',
      side: o.side === 'buy' ? 'BUY' : 'SELL',
      stopPrice: '0.00000000',
      icebergQty: '0.00000000',
      time: o.time,
      updateTime: v.updated,
      isWorking: true,
      workingTime: o.time,
      origQuoteOrderQty: '0.00000000',
      selfTradePreventionMode: 'EXPIRE_MAKER',
      avg: dec(v.filled > 0 ? v.cost / v.filled : 0),
      fee: v.fee,
      feeCurrency: v.feeCurrency,
    };
  }

  /** GET /api/v3/myTrades (one trade per filled leg); `orderId` keeps one order's trades. */
  private async myTrades(symbol: string, orderId: string | null): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const o of this.orders.values()) {
      if (o.symbol !== symbol || Date.now() < o.hideUntil) continue;
      if (orderId !== null && o.orderId !== Number(orderId)) continue;
      for (const [i, id] of o.legs.entries()) {
        const l = await this.venue.fetchOrder(id, symbol);
        if (!(l.filled > 0)) continue;
        out.push({
          symbol: this.idOf(symbol),
          id: o.orderId * 10 + i,
          orderId: o.orderId,
          orderListId: -1,
          price: dec(l.average ?? 0),
          qty: dec(l.filled),
          quoteQty: dec(l.cost),
          commission: dec(l.fee?.cost ?? 0),
          commissionAsset: l.fee?.currency ?? '',
          time: l.lastUpdateTimestamp ?? l.timestamp,
          isBuyer: o.side === 'buy',
          isMaker: false,
          isBestMatch: true,
        });
      }
    }
    return out;
  }
}

const SIGNED = [
  '/api/v3/account',
  '/api/v3/order',
  '/api/v3/openOrders',
  '/api/v3/allOrders',
  '/api/v3/myTrades',
];
function isSigned(path: string): boolean {
  return SIGNED.includes(path) || path.startsWith('/sapi/');
}

/** Our matching engine's refusals in Binance's codes. */
function toBinanceError(err: unknown): Error {
  if (err instanceof InsufficientFundsError) {
    return new BinanceError(400, -2010, 'Account has insufficient balance for requested action.');
  }
  if (err instanceof InvalidOrderError) {
    const filter =
      err.reason === 'min_cost' ? 'NOTIONAL' : err.reason === 'bad_price' ? 'PRICE_FILTER' : 'LOT_SIZE';
    if (err.reason === 'bad_symbol') return new BinanceError(400, -1121, 'Invalid symbol.');
    return new BinanceError(400, -1013, `Filter failure: ${filter}`);
  }
  if (err instanceof OrderNotFoundError) return new BinanceError(400, -2013, 'Order does not exist.');
  return err instanceof Error ? err : new Error(String(err));
}
