import { randomBytes } from 'node:crypto';
import { MAINTENANCE_MARGIN_RATE } from '../derivatives';
import { InsufficientFundsError, InvalidOrderError, OrderNotFoundError } from '../errors';
import type { Liquidation, Market, Order } from '../types';
import { UsdmAccount } from './binance-usdm-account';
import {
  idOf,
  px,
  qty,
  usdmExchangeInfo,
  usdmFundingHistory,
  usdmKlines,
  usdmMarkets,
  usdmPremiumIndex,
  usdmTicker24h,
  type UsdmContext,
} from './binance-usdm-market';
import type { FaultKind } from './faults';
import { BinanceError, dec, floorTo, type LedgerEntry, type Security } from './http';

/**
 * Binance USDⓈ-M futures REST (/fapi) for the emulator: the subset ccxt's `binance` calls for the
 * platform's swap methods, over the same PaperVenue's derivatives wallet (positions, leverage,
 * funding, reduce-only). Linear perpetuals only (`BTC/USDT:USDT`, id BTCUSDT), one-way mode.
 * Wire format: https://developers.binance.com/docs/derivatives/usds-margined-futures/
 * Error codes: https://developers.binance.com/docs/derivatives/usds-margined-futures/error-code
 * The HTTP plumbing, signatures and faults are the spot emulator's (binance-spot.ts, http.ts).
 */

export const USDM_ORDER_PATH = '/fapi/v1/order';
export type { UsdmContext } from './binance-usdm-market';

type FapiStatus = 'NEW' | 'PARTIALLY_FILLED' | 'FILLED' | 'CANCELED' | 'EXPIRED';

/** One futures order: its paper legs (two after a withheld remainder is released). */
interface FutOrder {
  orderId: number;
  clientOrderId: string;
  /** Unified symbol, `BTC/USDT:USDT`. */
  symbol: string;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price: number | null;
  amount: number;
  reduceOnly: boolean;
  legs: string[];
  /** Amount held back by a 'partial-fill' fault (not yet sent to the matching engine). */
  withheld: number;
  /** The withheld rest could not be placed (a reduce-only rest with no position left). */
  restExpired: boolean;
  canceled: boolean;
  time: number;
  /** 'late-fill': until then reads show the order as NEW and unfilled (ms epoch). */
  hideUntil: number;
  /** 'unknown-order': lookups still answered -2013. */
  unknownLookups: number;
}

interface OrderView {
  status: FapiStatus;
  filled: number;
  cost: number;
  fee: number;
  feeCurrency: string;
  updated: number;
}

/** Paths answered without a key (MARKET_DATA); listenKey needs the key only; the rest are signed. */
const PUBLIC = new Set([
  '/fapi/v1/ping',
  '/fapi/v1/time',
  '/fapi/v1/exchangeInfo',
  '/fapi/v1/depth',
  '/fapi/v1/klines',
  '/fapi/v1/ticker/24hr',
  '/fapi/v1/ticker/price',
  '/fapi/v2/ticker/price',
  '/fapi/v1/ticker/bookTicker',
  '/fapi/v1/premiumIndex',
  '/fapi/v1/fundingRate',
  '/fapi/v1/fundingInfo',
]);

/** Binance futures client ids: https://developers.binance.com/docs/derivatives/usds-margined-futures/trade/rest-api */
const CLIENT_ID = /^[.A-Z:/a-z0-9_-]{1,36}$/;

export class BinanceUsdmHandler {
  private readonly orders = new Map<number, FutOrder>();
  /** The newest order of each client id (Binance allows a client id again once its order is closed). */
  private readonly byClientId = new Map<string, number>();
  /** Legs whose paper order ended: kept, so a read never depends on the paper venue's closed cache. */
  private readonly finalLegs = new Map<string, Order>();
  private listenKey: string | null = null;
  private nextOrderId = 4_000_000_001;
  private readonly account: UsdmAccount;

  constructor(private readonly ctx: UsdmContext) {
    this.account = new UsdmAccount(
      ctx,
      () => this.markets(),
      (p) => this.marketOf(p),
    );
  }

  handles(path: string): boolean {
    return path.startsWith('/fapi/');
  }

  security(path: string): Security {
    if (path === '/fapi/v1/listenKey') return 'USER_STREAM';
    return PUBLIC.has(path) ? 'NONE' : 'SIGNED';
  }

  async route(method: string, path: string, p: URLSearchParams, fault: FaultKind | null): Promise<unknown> {
    const key = `${method} ${path}`;
    switch (key) {
      case 'GET /fapi/v1/ping':
        return {};
      case 'GET /fapi/v1/time':
        return { serverTime: this.ctx.now() };
      case 'GET /fapi/v1/exchangeInfo':
        return usdmExchangeInfo(this.markets(), this.ctx.now());
      case 'GET /fapi/v1/ticker/24hr':
        return this.each(p, (m) => usdmTicker24h(this.ctx.simulator, m));
      case 'GET /fapi/v1/ticker/price':
      case 'GET /fapi/v2/ticker/price':
        return this.each(p, (m) => ({
          symbol: idOf(m.symbol),
          price: px(this.mark(m.symbol), m),
          time: this.ctx.now(),
        }));
      case 'GET /fapi/v1/ticker/bookTicker':
        return this.each(p, (m) => {
          const b = this.ctx.simulator.orderBook('binance', m.symbol, 1);
          const [bid, bidQty] = b.bids[0] ?? [0, 0];
          const [ask, askQty] = b.asks[0] ?? [0, 0];
          return {
            symbol: idOf(m.symbol),
            bidPrice: px(bid, m),
            bidQty: qty(bidQty, m),
            askPrice: px(ask, m),
            askQty: qty(askQty, m),
            time: b.timestamp,
          };
        });
      case 'GET /fapi/v1/depth': {
        const m = this.marketOf(p);
        const b = this.ctx.simulator.orderBook('binance', m.symbol, Number(p.get('limit') ?? 500));
        const lv = (l: [number, number][]) => l.map(([price, q]) => [px(price, m), qty(q, m)]);
        return {
          lastUpdateId: b.timestamp,
          E: b.timestamp,
          T: b.timestamp,
          bids: lv(b.bids),
          asks: lv(b.asks),
        };
      }
      case 'GET /fapi/v1/klines':
        return usdmKlines(this.ctx.simulator, this.marketOf(p), p);
      case 'GET /fapi/v1/premiumIndex':
        return this.each(p, (m) => usdmPremiumIndex(this.ctx.simulator, m));
      case 'GET /fapi/v1/fundingRate':
        return usdmFundingHistory(
          this.ctx.simulator,
          p.get('symbol') ? [this.marketOf(p)] : this.markets(),
          p,
          this.ctx.now(),
        );
      case 'GET /fapi/v1/fundingInfo':
        // Only symbols whose funding cap or interval was adjusted are listed; none here.
        return [];
      case 'POST /fapi/v1/listenKey':
      case 'PUT /fapi/v1/listenKey':
        this.listenKey ??= randomBytes(32).toString('hex');
        return { listenKey: this.listenKey };
      case 'DELETE /fapi/v1/listenKey':
        this.listenKey = null;
        return {};
      case 'GET /fapi/v1/leverageBracket': {
        const rows = this.each(p, (m) => ({
          symbol: idOf(m.symbol),
          notionalCoef: 1,
          // One bracket: the engine's maintenance margin rate at every size.
          brackets: [
            {
              bracket: 1,
              initialLeverage: m.maxLeverage ?? 20,
              notionalCap: 100_000_000,
              notionalFloor: 0,
              maintMarginRatio: MAINTENANCE_MARGIN_RATE,
              cum: 0,
            },
          ],
        }));
        return rows;
      }
      case 'GET /fapi/v1/symbolConfig':
        return this.account.symbolConfig(p);
      case 'GET /fapi/v1/accountConfig':
        return {
          feeTier: 0,
          canTrade: true,
          canDeposit: true,
          canWithdraw: false,
          dualSidePosition: false,
          updateTime: this.ctx.now(),
          multiAssetsMargin: false,
          tradeGroupId: -1,
        };
      case 'GET /fapi/v1/positionSide/dual':
        return { dualSidePosition: false };
      case 'POST /fapi/v1/positionSide/dual':
        if (p.get('dualSidePosition') === 'false')
          throw new BinanceError(400, -4059, 'No need to change position side.');
        throw new BinanceError(400, -4068, 'Hedge mode is not emulated: the account stays in one-way mode.');
      case 'GET /fapi/v1/commissionRate': {
        const m = this.marketOf(p);
        return {
          symbol: idOf(m.symbol),
          makerCommissionRate: String(m.maker),
          takerCommissionRate: String(m.taker),
        };
      }
      case 'POST /fapi/v1/leverage':
        return this.account.setLeverage(p);
      case 'POST /fapi/v1/marginType':
        return this.account.setMarginType(p);
      case 'GET /fapi/v2/balance':
      case 'GET /fapi/v3/balance':
        return (await this.account.wallet()).map((a) => ({
          accountAlias: 'SgsR',
          asset: a.asset,
          balance: a.walletBalance,
          crossWalletBalance: a.crossWalletBalance,
          crossUnPnl: a.crossUnPnl,
          availableBalance: a.availableBalance,
          maxWithdrawAmount: a.maxWithdrawAmount,
          marginAvailable: true,
          updateTime: a.updateTime,
        }));
      case 'GET /fapi/v2/account':
        return this.account.account(2);
      case 'GET /fapi/v3/account':
        return this.account.account(3);
      case 'GET /fapi/v2/positionRisk':
        return this.account.positionRisk(p, 2);
      case 'GET /fapi/v3/positionRisk':
        return this.account.positionRisk(p, 3);
      case 'POST /fapi/v1/order':
        return this.createOrder(p, fault);
      case 'GET /fapi/v1/order':
        return this.format(await this.find(p, true));
      case 'GET /fapi/v1/openOrder': {
        const o = await this.find(p, true);
        const f = await this.format(o);
        if (f.status !== 'NEW' && f.status !== 'PARTIALLY_FILLED')
          throw new BinanceError(400, -2013, 'Order does not exist.');
        return f;
      }
      case 'DELETE /fapi/v1/order':
        return this.cancel(p);
      case 'GET /fapi/v1/openOrders': {
        const symbol = p.get('symbol') ? this.marketOf(p).symbol : null;
        const out = [];
        for (const o of this.orders.values()) {
          if (symbol !== null && o.symbol !== symbol) continue;
          const f = await this.format(o);
          if (f.status === 'NEW' || f.status === 'PARTIALLY_FILLED') out.push(f);
        }
        return out;
      }
      case 'GET /fapi/v1/allOrders':
        return this.allOrders(p);
      case 'GET /fapi/v1/userTrades':
        return this.userTrades(p);
      case 'GET /fapi/v1/forceOrders':
        return this.forceOrders(p);
      default:
        throw new BinanceError(404, -1100, `Unknown endpoint ${key}`);
    }
  }

  /** Sends the amounts withheld by 'partial-fill' faults to the matching engine. */
  async releaseWithheld(): Promise<void> {
    for (const o of this.orders.values()) {
      // A market order's rest expired at its creation (EXPIRED is final on Binance): never placed later.
      if (o.withheld <= 0 || o.canceled || o.type === 'market') continue;
      const amount = o.withheld;
      o.withheld = 0;
      try {
        const leg = await this.ctx.venue.createOrder({
          symbol: o.symbol,
          side: o.side,
          type: o.type,
          amount,
          ...(o.price !== null ? { price: o.price } : {}),
          ...(o.reduceOnly ? { reduceOnly: true } : {}),
          clientOrderId: `fapi${o.orderId}#${o.legs.length + 1}`,
        });
        o.legs.push(leg.id);
      } catch (err) {
        // A reduce-only rest finding no position (or a rest the margin no longer covers) expires.
        if (!(err instanceof InvalidOrderError || err instanceof InsufficientFundsError)) throw err;
        o.restExpired = true;
      }
    }
  }

  /** Every futures order the exchange holds, with its fill. */
  async ledger(): Promise<LedgerEntry[]> {
    const out: LedgerEntry[] = [];
    for (const o of this.orders.values()) {
      const v = await this.view(o, true);
      out.push({
        orderId: String(o.orderId),
        clientOrderId: o.clientOrderId,
        symbol: o.symbol,
        market: 'swap',
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
    return out;
  }

  // --- markets ---------------------------------------------------------------------------------------

  private markets(): Market[] {
    return usdmMarkets(this.ctx.simulator);
  }

  private marketOf(p: URLSearchParams): Market {
    const id = p.get('symbol') ?? '';
    if (!id)
      throw new BinanceError(
        400,
        -1102,
        "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed.",
      );
    const m = this.markets().find((x) => idOf(x.symbol) === id);
    if (!m) throw new BinanceError(400, -1121, 'Invalid symbol.');
    return m;
  }

  /** One object for `symbol`, else an array of every market (Binance's convention for these reads). */
  private each<T>(p: URLSearchParams, fn: (m: Market) => T): T | T[] {
    if (p.get('symbol')) return fn(this.marketOf(p));
    return this.markets().map(fn);
  }

  private mark(symbol: string): number {
    return this.ctx.simulator.price('binance', symbol);
  }

  // --- orders ------------------------------------------------------------------------------------------

  private async createOrder(p: URLSearchParams, fault: FaultKind | null): Promise<unknown> {
    const m = this.marketOf(p);
    const side = p.get('side') === 'SELL' ? 'sell' : p.get('side') === 'BUY' ? 'buy' : null;
    const type = p.get('type') === 'MARKET' ? 'market' : p.get('type') === 'LIMIT' ? 'limit' : null;
    if (!side) throw mandatory('side');
    if (!type) throw new BinanceError(400, -1116, 'Invalid orderType.');
    const positionSide = p.get('positionSide') ?? 'BOTH';
    if (positionSide !== 'BOTH') {
      throw new BinanceError(400, -4061, "Order's position side does not match user's setting.");
    }
    if (type === 'limit' && (p.get('timeInForce') ?? '') === '') throw mandatory('timeInForce');
    if (type === 'limit' && p.get('timeInForce') !== 'GTC') {
      // IOC, FOK and GTX are not emulated: refused rather than treated as GTC.
      throw new BinanceError(400, -1115, 'Invalid timeInForce.');
    }
    const qtyRaw = p.get('quantity');
    if (qtyRaw === null) throw mandatory('quantity');
    const amount = Number(qtyRaw);
    if (!(amount > 0)) throw new BinanceError(400, -4003, 'Quantity less than or equal to zero.');
    if (!onStep(amount, m.amountStep)) {
      throw new BinanceError(400, -1111, 'Precision is over the maximum defined for this asset.');
    }
    let price: number | null = null;
    if (type === 'limit') {
      if (p.get('price') === null) throw mandatory('price');
      price = Number(p.get('price'));
      if (!(price > 0)) throw new BinanceError(400, -4001, 'Price less than 0.');
      if (!onStep(price, m.priceStep))
        throw new BinanceError(400, -4014, 'Price not increased by tick size.');
    }
    const reduceOnly = p.get('reduceOnly') === 'true';
    const clientOrderId = p.get('newClientOrderId') ?? `web_${randomBytes(8).toString('hex')}`;
    if (!CLIENT_ID.test(clientOrderId)) {
      throw new BinanceError(
        400,
        -1100,
        "Illegal characters found in parameter 'newClientOrderId'; legal range is '^[\\.A-Z\\:/a-z0-9_-]{1,36}$'.",
      );
    }
    // Binance: "A unique id among open orders" — refused (-4116) while the first is open, accepted
    // again once it is closed (counted: the platform must never resend a placed order blindly).
    const prior = this.byClientId.get(clientOrderId);
    if (prior !== undefined) {
      const o = this.orders.get(prior);
      const v = o ? await this.view(o, true) : null;
      if (v && (v.status === 'NEW' || v.status === 'PARTIALLY_FILLED')) {
        this.ctx.onDuplicate();
        throw new BinanceError(400, -4116, 'ClientOrderId is duplicated.');
      }
      this.ctx.onDuplicate();
    }
    const refPrice = price ?? this.mark(m.symbol);
    if (!reduceOnly && amount * refPrice < m.minCost) {
      throw new BinanceError(
        400,
        -4164,
        `Order's notional must be no smaller than ${m.minCost} (unless you choose reduce only).`,
      );
    }
    const orderId = this.nextOrderId++;
    const share = fault === 'partial-fill' ? this.ctx.settings.partialShare : 1;
    const first = floorTo(amount * share, m.amountStep);
    let leg: Order;
    try {
      leg = await this.ctx.venue.createOrder({
        symbol: m.symbol,
        side,
        type,
        amount: first,
        ...(price !== null ? { price } : {}),
        ...(reduceOnly ? { reduceOnly: true } : {}),
        // Paper client ids are the emulator's own: Binance allows a client id again once closed.
        clientOrderId: `fapi${orderId}`,
      });
    } catch (err) {
      throw toFapiError(err, m);
    }
    const o: FutOrder = {
      orderId,
      clientOrderId,
      symbol: m.symbol,
      side,
      type,
      price,
      amount,
      reduceOnly,
      legs: [leg.id],
      withheld: amount - first > 1e-12 ? Number((amount - first).toFixed(12)) : 0,
      restExpired: false,
      canceled: false,
      time: this.ctx.now(),
      hideUntil: fault === 'late-fill' ? Date.now() + this.ctx.settings.lateMs : 0,
      unknownLookups: fault === 'unknown-order' ? this.ctx.settings.unknownLookups : 0,
    };
    this.orders.set(orderId, o);
    this.byClientId.set(clientOrderId, orderId);
    // newOrderRespType RESULT (what ccxt sends for futures): the order as it stands after matching.
    const { time: _t, ...wire } = await this.format(o);
    return { ...wire, cumQty: wire.executedQty };
  }

  /** The order named by orderId or origClientOrderId; -2013 when there is none. */
  private async find(p: URLSearchParams, lookup: boolean): Promise<FutOrder> {
    const m = this.marketOf(p);
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
    if (!o || o.symbol !== m.symbol) throw new BinanceError(400, -2013, 'Order does not exist.');
    if (lookup && o.unknownLookups > 0) {
      o.unknownLookups -= 1;
      throw new BinanceError(400, -2013, 'Order does not exist.');
    }
    return o;
  }

  private async cancel(p: URLSearchParams): Promise<unknown> {
    let o: FutOrder;
    try {
      o = await this.find(p, false);
    } catch (err) {
      // fapi answers a cancel of an order it does not know -2011 "Unknown order sent.".
      if (err instanceof BinanceError && err.code === -2013)
        throw new BinanceError(400, -2011, 'Unknown order sent.');
      throw err;
    }
    const before = await this.view(o, true);
    if (before.status !== 'NEW' && before.status !== 'PARTIALLY_FILLED') {
      throw new BinanceError(400, -2011, 'Unknown order sent.');
    }
    for (const leg of o.legs) {
      const l = await this.leg(leg, o.symbol);
      if (l.status === 'open') await this.ctx.venue.cancelOrder(leg, o.symbol);
    }
    o.canceled = true;
    o.withheld = 0;
    o.hideUntil = 0;
    const { time: _t, ...wire } = await this.format(o);
    return { ...wire, cumQty: wire.executedQty };
  }

  /** A paper leg, from the kept final state once it ended. */
  private async leg(id: string, symbol: string): Promise<Order> {
    const kept = this.finalLegs.get(id);
    if (kept) return kept;
    const l = await this.ctx.venue.fetchOrder(id, symbol);
    if (l.status !== 'open') this.finalLegs.set(id, l);
    return l;
  }

  /** The order's state from its legs; `truth` ignores a hidden (late) fill. */
  private async view(o: FutOrder, truth: boolean): Promise<OrderView> {
    let filled = 0;
    let cost = 0;
    let fee = 0;
    let feeCurrency = o.symbol.split(':')[1] ?? 'USDT';
    let allClosed = true;
    let ended = false;
    let updated = o.time;
    for (const id of o.legs) {
      const l = await this.leg(id, o.symbol);
      filled += l.filled;
      cost += l.cost;
      if (l.fee) {
        fee += l.fee.cost;
        feeCurrency = l.fee.currency;
      }
      updated = Math.max(updated, l.lastUpdateTimestamp ?? l.timestamp);
      if (l.status === 'open') allClosed = false;
      // The engine ended a leg itself (a reduce-only order capped at the position, a liquidation).
      else if (l.status !== 'closed') ended = true;
    }
    let status: FapiStatus;
    if (o.canceled) status = 'CANCELED';
    else if (ended || o.restExpired) status = allClosed ? 'EXPIRED' : filled > 0 ? 'PARTIALLY_FILLED' : 'NEW';
    // A reduce-only order capped at a smaller position ends with its rest unexecuted: EXPIRED.
    else if (allClosed && o.withheld === 0) status = o.amount - filled > 1e-9 ? 'EXPIRED' : 'FILLED';
    else if (allClosed && o.type === 'market') status = 'EXPIRED';
    else status = filled > 0 ? 'PARTIALLY_FILLED' : 'NEW';
    if (!truth && Date.now() < o.hideUntil && status !== 'CANCELED') {
      return { status: 'NEW', filled: 0, cost: 0, fee: 0, feeCurrency, updated: o.time };
    }
    return { status, filled, cost, fee, feeCurrency, updated };
  }

  /** Binance's futures order object (GET /fapi/v1/order shape); a late fill stays hidden. */
  private async format(o: FutOrder) {
    const m = this.ctx.simulator.market('binance', o.symbol);
    const v = await this.view(o, false);
    const type = o.type === 'limit' ? 'LIMIT' : 'MARKET';
    return {
      orderId: o.orderId,
      symbol: idOf(o.symbol),
      status: v.status,
      clientOrderId: o.clientOrderId,
      price: px(o.price ?? 0, m),
      avgPrice: v.filled > 0 ? dec(v.cost / v.filled) : '0.00',
      origQty: qty(o.amount, m),
      executedQty: qty(v.filled, m),
      cumQuote: dec(v.cost),
      timeInForce: o.type === 'limit' ? 'GTC' : 'GTC',
      type,
      reduceOnly: o.reduceOnly,
      closePosition: false,
      side: o.side === 'buy' ? 'BUY' : 'SELL',
      positionSide: 'BOTH',
      stopPrice: '0',
      workingType: 'CONTRACT_PRICE',
      priceProtect: false,
      origType: type,
      priceMatch: 'NONE',
      selfTradePreventionMode: 'EXPIRE_MAKER',
      goodTillDate: 0,
      time: o.time,
      updateTime: v.updated,
    };
  }

  /**
   * The user's force orders (liquidations; ADL is not emulated): `GET /fapi/v1/forceOrders`, newest
   * first, `limit` 50 by default and at most 100, within startTime..endTime (ms). Shape as Binance's
   * documented reply (https://developers.binance.com/docs/derivatives/usds-margined-futures/trade/rest-api/Users-Force-Orders):
   * the liquidation's closing order, filled at the liquidation price.
   */
  private async forceOrders(p: URLSearchParams): Promise<unknown[]> {
    if (p.get('autoCloseType') === 'ADL') return [];
    const limit = Math.min(100, Math.max(1, Number(p.get('limit') ?? 50) || 50));
    const from = Number(p.get('startTime') ?? 0) || 0;
    const to = Number(p.get('endTime') ?? Number.MAX_SAFE_INTEGER) || Number.MAX_SAFE_INTEGER;
    const markets = p.get('symbol') ? [this.marketOf(p)] : this.markets();
    const rows: { m: Market; l: Liquidation }[] = [];
    for (const m of markets)
      for (const l of await this.ctx.venue.fetchMyLiquidations(m.symbol, from))
        if (l.ts <= to) rows.push({ m, l });
    rows.sort((a, b) => b.l.ts - a.l.ts);
    return rows.slice(0, limit).map(({ m, l }, i) => ({
      orderId: 9_000_000_001 + i,
      symbol: idOf(m.symbol),
      status: 'FILLED',
      clientOrderId: `autoclose-${l.ts}${String(i).padStart(6, '0')}`,
      price: px(l.price, m),
      avgPrice: px(l.price, m),
      origQty: qty(l.contracts, m),
      executedQty: qty(l.contracts, m),
      cumQuote: dec(l.contracts * l.price * (m.contractSize ?? 1)),
      timeInForce: 'IOC',
      type: 'LIMIT',
      reduceOnly: false,
      closePosition: false,
      side: l.side === 'long' ? 'SELL' : 'BUY',
      positionSide: 'BOTH',
      stopPrice: '0',
      workingType: 'CONTRACT_PRICE',
      origType: 'LIMIT',
      time: l.ts,
      updateTime: l.ts,
    }));
  }

  private async allOrders(p: URLSearchParams): Promise<unknown[]> {
    const m = this.marketOf(p);
    const fromId = p.get('orderId') ? Number(p.get('orderId')) : 0;
    const start = Number(p.get('startTime') ?? 0);
    const end = Number(p.get('endTime') ?? Infinity);
    const limit = Math.min(1_000, Math.max(1, Number(p.get('limit') ?? 500) || 500));
    const out = [];
    for (const o of this.orders.values()) {
      if (o.symbol !== m.symbol || o.orderId < fromId || o.time < start || o.time > end) continue;
      out.push(await this.format(o));
    }
    return out.slice(-limit);
  }

  /** GET /fapi/v1/userTrades: one trade per filled leg (the realized PnL is not tracked per fill: "0"). */
  private async userTrades(p: URLSearchParams): Promise<unknown[]> {
    const m = this.marketOf(p);
    const byOrder = p.get('orderId') ? Number(p.get('orderId')) : null;
    const limit = Math.min(1_000, Math.max(1, Number(p.get('limit') ?? 500) || 500));
    const out: unknown[] = [];
    for (const o of this.orders.values()) {
      if (o.symbol !== m.symbol || Date.now() < o.hideUntil) continue;
      if (byOrder !== null && o.orderId !== byOrder) continue;
      for (const [i, id] of o.legs.entries()) {
        const l = await this.leg(id, o.symbol);
        if (!(l.filled > 0)) continue;
        out.push({
          buyer: o.side === 'buy',
          commission: dec(l.fee?.cost ?? 0),
          commissionAsset: l.fee?.currency ?? 'USDT',
          id: o.orderId * 10 + i,
          maker: o.type === 'limit' && (l.lastUpdateTimestamp ?? 0) > o.time,
          orderId: o.orderId,
          price: px(l.average ?? 0, m),
          qty: qty(l.filled, m),
          quoteQty: dec(l.cost),
          realizedPnl: '0',
          side: o.side === 'buy' ? 'BUY' : 'SELL',
          positionSide: 'BOTH',
          symbol: idOf(m.symbol),
          time: l.lastUpdateTimestamp ?? l.timestamp,
        });
      }
    }
    return out.slice(-limit);
  }
}

/** True when `v` is a whole number of `step` (within float error). */
function onStep(v: number, step: number): boolean {
  if (!(step > 0)) return true;
  const n = v / step;
  return Math.abs(n - Math.round(n)) < 1e-6;
}

function mandatory(name: string): BinanceError {
  return new BinanceError(
    400,
    -1102,
    `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`,
  );
}

/** The matching engine's refusals in Binance USDⓈ-M codes. */
function toFapiError(err: unknown, m: Market): Error {
  if (err instanceof InsufficientFundsError) return new BinanceError(400, -2019, 'Margin is insufficient.');
  if (err instanceof InvalidOrderError) {
    if (/reduceonly/i.test(err.message)) return new BinanceError(400, -2022, 'ReduceOnly Order is rejected.');
    if (err.reason === 'min_cost') {
      return new BinanceError(
        400,
        -4164,
        `Order's notional must be no smaller than ${m.minCost} (unless you choose reduce only).`,
      );
    }
    if (err.reason === 'bad_symbol') return new BinanceError(400, -1121, 'Invalid symbol.');
    if (err.reason === 'bad_price') return new BinanceError(400, -4014, 'Price not increased by tick size.');
    if (err.reason === 'min_amount' || err.reason === 'precision') {
      return new BinanceError(400, -1111, 'Precision is over the maximum defined for this asset.');
    }
    return new BinanceError(400, -1000, err.message);
  }
  if (err instanceof OrderNotFoundError) return new BinanceError(400, -2013, 'Order does not exist.');
  return err instanceof Error ? err : new Error(String(err));
}
