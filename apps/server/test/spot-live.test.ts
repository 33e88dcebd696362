/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- JSON answers read loosely */
import { SPOT_MESSAGES } from '@bytx/contract';
import { CcxtVenue } from '@bytx/venues';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketHubService } from '../src/modules/market/market.service';
import { defaultVenueFactory } from '../src/modules/exchanges/venue-factory';
import type { DbVenueRegistry } from '../src/modules/exchanges/venue-registry';
import { runners } from '../src/modules/bots/routes';
import { strategyIdOf } from '../src/modules/bots/runner';
import { until as waitFor } from './bots.helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type Json = Record<string, any>;
type User = Awaited<ReturnType<typeof createTestUser>>;

const EX = 'binance';
const SYM = 'BTC/USDT';
const PERP = 'BTC/USDT:USDT';
const KEY = 'liveSpotKey4Hq8Zt2Wm6Rk1Pv9';
const SECRET = 'liveSpotSecret_Jd3Nx7Bc0Lf5Gs8Ty2Ua6';
const until = <T>(fn: () => Promise<T | null | undefined | false>) => waitFor(fn, 10_000);

/** One HTTP request ccxt made: where, and its parameters (query string and form or JSON body merged). */
interface Call {
  method: string;
  host: string;
  path: string;
  params: Record<string, string>;
  signed: boolean;
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** Binance's decimal strings (8 decimals on spot, as the exchange answers them). */
const d8 = (x: number) => x.toFixed(8);

// --- recorded-style Binance responses -------------------------------------------------------------

/** `GET /api/v3/exchangeInfo` (spot): BTCUSDT with its real filters (0.01 tick, 0.00001 step, 5 USDT). */
const SPOT_EXCHANGE_INFO = {
  timezone: 'UTC',
  serverTime: 1736942400000,
  rateLimits: [],
  exchangeFilters: [],
  symbols: [
    {
      symbol: 'BTCUSDT',
      status: 'TRADING',
      baseAsset: 'BTC',
      baseAssetPrecision: 8,
      quoteAsset: 'USDT',
      quotePrecision: 8,
      quoteAssetPrecision: 8,
      orderTypes: ['LIMIT', 'LIMIT_MAKER', 'MARKET', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT'],
      icebergAllowed: true,
      ocoAllowed: true,
      isSpotTradingAllowed: true,
      isMarginTradingAllowed: true,
      filters: [
        {
          filterType: 'PRICE_FILTER',
          minPrice: '0.01000000',
          maxPrice: '1000000.00000000',
          tickSize: '0.01000000',
        },
        { filterType: 'LOT_SIZE', minQty: '0.00001000', maxQty: '9000.00000000', stepSize: '0.00001000' },
        {
          filterType: 'NOTIONAL',
          minNotional: '5.00000000',
          applyMinToMarket: true,
          maxNotional: '9000000.00000000',
          applyMaxToMarket: false,
          avgPriceMins: 5,
        },
      ],
      permissions: [],
      permissionSets: [['SPOT', 'MARGIN']],
      defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
      allowedSelfTradePreventionModes: ['EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH'],
    },
  ],
};

/** `GET /fapi/v1/exchangeInfo` (USDⓈ-M): the BTCUSDT perpetual, 0.1 tick, 0.001 step, 100 USDT notional. */
const FAPI_EXCHANGE_INFO = {
  timezone: 'UTC',
  serverTime: 1736942400000,
  futuresType: 'U_MARGINED',
  rateLimits: [],
  exchangeFilters: [],
  assets: [{ asset: 'USDT', marginAvailable: true, autoAssetExchange: '-10000' }],
  symbols: [
    {
      symbol: 'BTCUSDT',
      pair: 'BTCUSDT',
      contractType: 'PERPETUAL',
      deliveryDate: 4133404800000,
      onboardDate: 1569398400000,
      status: 'TRADING',
      maintMarginPercent: '2.5000',
      requiredMarginPercent: '5.0000',
      baseAsset: 'BTC',
      quoteAsset: 'USDT',
      marginAsset: 'USDT',
      pricePrecision: 2,
      quantityPrecision: 3,
      baseAssetPrecision: 8,
      quotePrecision: 8,
      underlyingType: 'COIN',
      underlyingSubType: ['PoW'],
      triggerProtect: '0.0500',
      liquidationFee: '0.012500',
      marketTakeBound: '0.05',
      maxMoveOrderLimit: 10000,
      filters: [
        { filterType: 'PRICE_FILTER', minPrice: '556.80', maxPrice: '4529764', tickSize: '0.10' },
        { filterType: 'LOT_SIZE', stepSize: '0.001', maxQty: '1000', minQty: '0.001' },
        { filterType: 'MARKET_LOT_SIZE', stepSize: '0.001', maxQty: '120', minQty: '0.001' },
        { filterType: 'MAX_NUM_ORDERS', limit: 200 },
        { filterType: 'MIN_NOTIONAL', notional: '100' },
        {
          filterType: 'PERCENT_PRICE',
          multiplierUp: '1.0500',
          multiplierDown: '0.9500',
          multiplierDecimal: '4',
        },
      ],
      orderTypes: ['LIMIT', 'MARKET', 'STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET'],
      timeInForce: ['GTC', 'IOC', 'FOK', 'GTX', 'GTD'],
      permissionSets: ['GRID', 'COPY'],
    },
  ],
};

/** `GET /dapi/v1/exchangeInfo` (COIN-M): ccxt loads it with the linear list; no inverse market is listed. */
const DAPI_EXCHANGE_INFO = {
  timezone: 'UTC',
  serverTime: 1736942400000,
  rateLimits: [],
  exchangeFilters: [],
  symbols: [],
};

/** `GET /fapi/v1/leverageBracket` (ccxt reads it for the maintenance margin of positions). */
const LEVERAGE_BRACKETS = [
  {
    symbol: 'BTCUSDT',
    notionalCoef: 1.5,
    brackets: [
      {
        bracket: 1,
        initialLeverage: 125,
        notionalCap: 50000,
        notionalFloor: 0,
        maintMarginRatio: 0.004,
        cum: 0,
      },
    ],
  },
];

const spotTicker = (last: number) => ({
  symbol: 'BTCUSDT',
  priceChange: '-1200.00000000',
  priceChangePercent: '-1.250',
  weightedAvgPrice: d8(last),
  prevClosePrice: d8(last + 1200),
  lastPrice: d8(last),
  lastQty: '0.01000000',
  bidPrice: d8(last - 0.01),
  bidQty: '1.20000000',
  askPrice: d8(last + 0.01),
  askQty: '0.80000000',
  openPrice: d8(last + 1200),
  highPrice: d8(last + 2000),
  lowPrice: d8(last - 1000),
  volume: '12000.50000000',
  quoteVolume: '1146000000.00000000',
  openTime: Date.now() - 86_400_000,
  closeTime: Date.now(),
  firstId: 1,
  lastId: 2,
  count: 2,
});

/**
 * Binance's spot, USDⓈ-M and COIN-M REST API behind ccxt's `fetch`, answering as the exchange does
 * (its recorded response shapes): market lists, tickers, the account, the API restrictions, and a small
 * matching engine for this key's orders — a market order fills at the last price with its fills and
 * commission, a limit order rests until `setSpotPrice` crosses it, a cancel answers with Binance's own
 * new `clientOrderId` and the order's in `origClientOrderId`, a USDⓈ-M market order fills and moves the
 * one-way position. Nothing leaves the process (no socket is opened): any other host or path is
 * answered 404 and listed in `misses`, which every test expects empty.
 */
function fakeBinance() {
  const calls: Call[] = [];
  const misses: string[] = [];
  let spotPrice = 95_000;
  const perpPrice = 95_000;
  let seq = 8_886_000;
  /** One-shot refusal of the next spot order (a recorded Binance error). */
  let refuseNext: { status: number; body: unknown } | null = null;
  const balances: Record<string, { free: number; locked: number }> = {
    USDT: { free: 2_000, locked: 0 },
    BTC: { free: 0.5, locked: 0 },
  };
  const spot = new Map<string, Json>();
  const futures = new Map<string, Json>();
  let position = { amt: 0, entry: 0 };
  let isolated = false;
  const fapiWallet = 5_000;

  const spotView = (o: Json) => {
    const { fills: _fills, ...rest } = o;
    return { ...rest, isWorking: true, origQuoteOrderQty: '0.00000000' };
  };
  const byParams = (book: Map<string, Json>, p: Record<string, string>) =>
    [...book.values()].find((o) =>
      p.orderId ? String(o.orderId) === p.orderId : o.clientOrderId === p.origClientOrderId,
    );
  const fillSpot = (o: Json, price: number) => {
    const qty = Number(o.origQty);
    o.status = 'FILLED';
    o.executedQty = d8(qty);
    o.cummulativeQuoteQty = d8(qty * price);
    o.updateTime = Date.now();
  };

  const spotRoute = (method: string, path: string, p: Record<string, string>) => {
    if (path === '/api/v3/exchangeInfo') return json(SPOT_EXCHANGE_INFO);
    if (path === '/api/v3/ticker/24hr') return json(spotTicker(spotPrice));
    if (path === '/api/v3/account')
      return json({
        makerCommission: 10,
        takerCommission: 10,
        buyerCommission: 0,
        sellerCommission: 0,
        canTrade: true,
        canWithdraw: false,
        canDeposit: true,
        updateTime: Date.now(),
        accountType: 'SPOT',
        balances: Object.entries(balances).map(([asset, b]) => ({
          asset,
          free: d8(b.free),
          locked: d8(b.locked),
        })),
        permissions: ['SPOT'],
      });
    if (path === '/sapi/v1/account/apiRestrictions')
      return json({
        ipRestrict: false,
        createTime: 1736900000000,
        enableWithdrawals: false,
        enableInternalTransfer: false,
        permitsUniversalTransfer: false,
        enableVanillaOptions: false,
        enableReading: true,
        enableFutures: true,
        enableMargin: false,
        enableSpotAndMarginTrading: true,
      });
    if (path === '/api/v3/order' && method === 'POST') {
      if (refuseNext) {
        const r = refuseNext;
        refuseNext = null;
        return json(r.body, r.status);
      }
      const now = Date.now();
      const market = p.type === 'MARKET';
      const qty = Number(p.quantity);
      const o: Json = {
        symbol: p.symbol,
        orderId: seq++,
        orderListId: -1,
        clientOrderId: p.newClientOrderId ?? `web_${seq}`,
        transactTime: now,
        price: market ? '0.00000000' : d8(Number(p.price)),
        origQty: d8(qty),
        executedQty: '0.00000000',
        cummulativeQuoteQty: '0.00000000',
        status: 'NEW',
        timeInForce: market ? 'GTC' : (p.timeInForce ?? 'GTC'),
        type: p.type,
        side: p.side,
        stopPrice: '0.00000000',
        icebergQty: '0.00000000',
        time: now,
        updateTime: now,
        workingTime: now,
        fills: [] as Json[],
        selfTradePreventionMode: 'EXPIRE_MAKER',
      };
      if (market) {
        fillSpot(o, spotPrice);
        // The commission is taken in what the order receives: BTC on a buy, USDT on a sell (0.1 %).
        o.fills = [
          {
            price: d8(spotPrice),
            qty: d8(qty),
            commission: p.side === 'BUY' ? d8(qty * 0.001) : d8(qty * spotPrice * 0.001),
            commissionAsset: p.side === 'BUY' ? 'BTC' : 'USDT',
            tradeId: seq++,
          },
        ];
      }
      spot.set(o.clientOrderId as string, o);
      return json(o);
    }
    if (path === '/api/v3/order' && method === 'GET') {
      const o = byParams(spot, p);
      return o ? json(spotView(o)) : json({ code: -2013, msg: 'Order does not exist.' }, 400);
    }
    if (path === '/api/v3/order' && method === 'DELETE') {
      const o = byParams(spot, p);
      if (!o || (o.status !== 'NEW' && o.status !== 'PARTIALLY_FILLED'))
        return json({ code: -2011, msg: 'Unknown order sent.' }, 400);
      o.status = 'CANCELED';
      o.updateTime = Date.now();
      // Binance names the cancel request itself in clientOrderId (generated when none is sent).
      return json({
        symbol: o.symbol,
        origClientOrderId: o.clientOrderId,
        orderId: o.orderId,
        orderListId: -1,
        clientOrderId: p.newClientOrderId ?? `cancel${seq++}Kq3vXb`,
        transactTime: o.updateTime,
        price: o.price,
        origQty: o.origQty,
        executedQty: o.executedQty,
        origQuoteOrderQty: '0.00000000',
        cummulativeQuoteQty: o.cummulativeQuoteQty,
        status: 'CANCELED',
        timeInForce: o.timeInForce,
        type: o.type,
        side: o.side,
        selfTradePreventionMode: 'EXPIRE_MAKER',
      });
    }
    if (path === '/api/v3/openOrders')
      return json(
        [...spot.values()].filter((o) => o.status === 'NEW' && o.symbol === p.symbol).map(spotView),
      );
    // Every order of the symbol (open and finished), as GET /api/v3/order shows each, oldest first; at
    // most `limit` (500 by default): https://developers.binance.com/docs/binance-spot-api-docs/rest-api/trading-endpoints#all-orders-user_data
    if (path === '/api/v3/allOrders')
      return json(
        [...spot.values()]
          .filter((o) => o.symbol === p.symbol)
          .sort((a, b) => Number(a.orderId) - Number(b.orderId))
          .slice(-Number(p.limit ?? 500))
          .map(spotView),
      );
    // The commission is only here (and in a create reply's fills): one trade per filled order, 0.1 % in
    // what the order receives; `orderId` keeps one order's trades:
    // https://developers.binance.com/docs/binance-spot-api-docs/rest-api/account-endpoints#account-trade-list-user_data
    if (path === '/api/v3/myTrades')
      return json(
        [...spot.values()]
          .filter((o) => o.symbol === p.symbol && Number(o.executedQty) > 0)
          .filter((o) => !p.orderId || String(o.orderId) === p.orderId)
          .map((o) => {
            const qty = Number(o.executedQty);
            const quote = Number(o.cummulativeQuoteQty);
            return {
              symbol: o.symbol,
              id: Number(o.orderId) * 10,
              orderId: o.orderId,
              orderListId: -1,
              price: d8(quote / qty),
              qty: d8(qty),
              quoteQty: d8(quote),
              commission: o.side === 'BUY' ? d8(qty * 0.001) : d8(quote * 0.001),
              commissionAsset: o.side === 'BUY' ? 'BTC' : 'USDT',
              time: o.updateTime,
              isBuyer: o.side === 'BUY',
              isMaker: o.type === 'LIMIT',
              isBestMatch: true,
            };
          }),
      );
    return null;
  };

  const positionRisk = () =>
    position.amt === 0
      ? []
      : [
          {
            symbol: 'BTCUSDT',
            positionSide: 'BOTH',
            positionAmt: position.amt.toFixed(3),
            entryPrice: position.entry.toFixed(1),
            breakEvenPrice: position.entry.toFixed(1),
            markPrice: perpPrice.toFixed(8),
            unRealizedProfit: ((perpPrice - position.entry) * position.amt).toFixed(8),
            liquidationPrice: (position.entry * 0.8).toFixed(8),
            isolatedMargin: ((Math.abs(position.amt) * position.entry) / 5).toFixed(8),
            notional: (position.amt * perpPrice).toFixed(8),
            marginAsset: 'USDT',
            isolatedWallet: ((Math.abs(position.amt) * position.entry) / 5).toFixed(8),
            initialMargin: ((Math.abs(position.amt) * perpPrice) / 5).toFixed(8),
            maintMargin: (Math.abs(position.amt) * perpPrice * 0.004).toFixed(8),
            positionInitialMargin: ((Math.abs(position.amt) * perpPrice) / 5).toFixed(8),
            openOrderInitialMargin: '0',
            adl: 1,
            bidNotional: '0',
            askNotional: '0',
            updateTime: Date.now(),
          },
        ];

  const fapiAccount = () => ({
    totalInitialMargin: '0.00000000',
    totalMaintMargin: '0.00000000',
    totalWalletBalance: d8(fapiWallet),
    totalUnrealizedProfit: '0.00000000',
    totalMarginBalance: d8(fapiWallet),
    totalPositionInitialMargin: '0.00000000',
    totalOpenOrderInitialMargin: '0.00000000',
    totalCrossWalletBalance: d8(fapiWallet),
    totalCrossUnPnl: '0.00000000',
    availableBalance: d8(fapiWallet),
    maxWithdrawAmount: d8(fapiWallet),
    assets: [
      {
        asset: 'USDT',
        walletBalance: d8(fapiWallet),
        unrealizedProfit: '0.00000000',
        marginBalance: d8(fapiWallet),
        maintMargin: '0.00000000',
        initialMargin: '0.00000000',
        positionInitialMargin: '0.00000000',
        openOrderInitialMargin: '0.00000000',
        crossWalletBalance: d8(fapiWallet),
        crossUnPnl: '0.00000000',
        availableBalance: d8(fapiWallet),
        maxWithdrawAmount: d8(fapiWallet),
        updateTime: Date.now(),
      },
    ],
    positions: [],
  });

  const fapiRoute = (method: string, path: string, p: Record<string, string>) => {
    if (path === '/fapi/v1/exchangeInfo') return json(FAPI_EXCHANGE_INFO);
    if (path === '/fapi/v1/leverageBracket') return json(LEVERAGE_BRACKETS);
    if (path === '/fapi/v1/ticker/24hr')
      return json({
        symbol: 'BTCUSDT',
        priceChange: '-1200.00',
        priceChangePercent: '-1.250',
        weightedAvgPrice: perpPrice.toFixed(2),
        lastPrice: perpPrice.toFixed(2),
        lastQty: '0.010',
        openPrice: (perpPrice + 1200).toFixed(2),
        highPrice: (perpPrice + 2000).toFixed(2),
        lowPrice: (perpPrice - 1000).toFixed(2),
        volume: '150000.000',
        quoteVolume: '14250000000.00',
        openTime: Date.now() - 86_400_000,
        closeTime: Date.now(),
        firstId: 1,
        lastId: 2,
        count: 2,
      });
    if (path === '/fapi/v1/premiumIndex')
      return json({
        symbol: 'BTCUSDT',
        markPrice: d8(perpPrice),
        indexPrice: d8(perpPrice + 10),
        estimatedSettlePrice: d8(perpPrice + 5),
        lastFundingRate: '0.00010000',
        interestRate: '0.00010000',
        nextFundingTime: 1736956800000,
        time: 1736942400000,
      });
    if (path === '/fapi/v2/account' || path === '/fapi/v3/account') return json(fapiAccount());
    if (path === '/fapi/v2/balance' || path === '/fapi/v3/balance')
      return json(fapiAccount().assets.map((a) => ({ accountAlias: 'SgsR', ...a })));
    if (path === '/fapi/v2/positionRisk' || path === '/fapi/v3/positionRisk') return json(positionRisk());
    if (path === '/fapi/v1/marginType' && method === 'POST') {
      if (isolated) return json({ code: -4046, msg: 'No need to change margin type.' }, 400);
      isolated = true;
      return json({ code: 200, msg: 'success' });
    }
    if (path === '/fapi/v1/leverage' && method === 'POST')
      return json({ symbol: 'BTCUSDT', leverage: Number(p.leverage), maxNotionalValue: '1000000' });
    if (path === '/fapi/v1/forceOrders') return json([]);
    if (path === '/fapi/v1/openOrders') return json([]);
    if (path === '/fapi/v1/order' && method === 'POST') {
      const qty = Number(p.quantity);
      const signed = p.side === 'BUY' ? qty : -qty;
      if (p.reduceOnly === 'true' && (position.amt === 0 || Math.sign(signed) === Math.sign(position.amt)))
        return json({ code: -2022, msg: 'ReduceOnly Order is rejected.' }, 400);
      const amt = Math.round((position.amt + signed) * 1000) / 1000;
      position = { amt, entry: amt === 0 ? 0 : position.amt === 0 ? perpPrice : position.entry };
      const o = {
        orderId: seq++,
        symbol: p.symbol,
        status: 'FILLED',
        clientOrderId: p.newClientOrderId,
        price: '0.00',
        avgPrice: perpPrice.toFixed(2),
        origQty: qty.toFixed(3),
        executedQty: qty.toFixed(3),
        cumQty: qty.toFixed(3),
        cumQuote: (qty * perpPrice).toFixed(5),
        timeInForce: 'GTC',
        type: 'MARKET',
        reduceOnly: p.reduceOnly === 'true',
        closePosition: false,
        side: p.side,
        positionSide: 'BOTH',
        stopPrice: '0.00',
        workingType: 'CONTRACT_PRICE',
        priceProtect: false,
        origType: 'MARKET',
        priceMatch: 'NONE',
        selfTradePreventionMode: 'EXPIRE_MAKER',
        goodTillDate: 0,
        updateTime: Date.now(),
      };
      futures.set(o.clientOrderId ?? String(o.orderId), o);
      return json(o);
    }
    if (path === '/fapi/v1/order' && method === 'GET') {
      const o = byParams(futures, p);
      return o ? json(o) : json({ code: -2013, msg: 'Order does not exist.' }, 400);
    }
    // Futures order replies carry no commission; the account's trades do (taker 0.05 % in USDT):
    // https://developers.binance.com/docs/derivatives/usds-margined-futures/trade/rest-api/Account-Trade-List
    if (path === '/fapi/v1/userTrades')
      return json(
        [...futures.values()]
          .filter((o) => !p.orderId || String(o.orderId) === p.orderId)
          .map((o) => ({
            buyer: o.side === 'BUY',
            commission: (Number(o.cumQuote) * 0.0005).toFixed(8),
            commissionAsset: 'USDT',
            id: Number(o.orderId) * 10,
            maker: false,
            orderId: o.orderId,
            price: o.avgPrice,
            qty: o.executedQty,
            quoteQty: o.cumQuote,
            realizedPnl: '0',
            side: o.side,
            positionSide: 'BOTH',
            symbol: o.symbol,
            time: o.updateTime,
          })),
      );
    return null;
  };

  const PUBLIC = new Set([
    '/api/v3/exchangeInfo',
    '/api/v3/ticker/24hr',
    '/fapi/v1/exchangeInfo',
    '/fapi/v1/ticker/24hr',
    '/fapi/v1/premiumIndex',
    '/dapi/v1/exchangeInfo',
  ]);

  const fetchImplementation = async (url: string, init: Record<string, unknown>): Promise<Response> => {
    await Promise.resolve();
    const u = new URL(url);
    const method = (typeof init.method === 'string' ? init.method : 'GET').toUpperCase();
    const headers = (init.headers ?? {}) as Record<string, string>;
    const key = headers['X-MBX-APIKEY'] ?? headers['x-mbx-apikey'];
    const params: Record<string, string> = Object.fromEntries(u.searchParams);
    if (typeof init.body === 'string' && init.body) {
      if (init.body.startsWith('{')) Object.assign(params, JSON.parse(init.body) as Record<string, string>);
      else Object.assign(params, Object.fromEntries(new URLSearchParams(init.body)));
    }
    const signed = key === KEY && typeof params.signature === 'string';
    calls.push({ method, host: u.hostname, path: u.pathname, params, signed });
    if (!PUBLIC.has(u.pathname) && !signed)
      return json({ code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' }, 401);
    let res: Response | null = null;
    if (u.hostname === 'api.binance.com') res = spotRoute(method, u.pathname, params);
    else if (u.hostname === 'fapi.binance.com') res = fapiRoute(method, u.pathname, params);
    else if (u.hostname === 'dapi.binance.com' && u.pathname === '/dapi/v1/exchangeInfo')
      res = json(DAPI_EXCHANGE_INFO);
    if (res) return res;
    misses.push(`${method} ${u.hostname}${u.pathname}`);
    return json({ code: -1000, msg: `not recorded: ${method} ${u.pathname}` }, 404);
  };

  return {
    fetchImplementation,
    calls,
    misses,
    spot,
    /** The spot market moves: resting limit orders it crosses fill at their price. */
    setSpotPrice(p: number) {
      spotPrice = p;
      for (const o of spot.values()) {
        if (o.status !== 'NEW' || o.type !== 'LIMIT') continue;
        const limit = Number(o.price);
        if (o.side === 'BUY' ? p <= limit : p >= limit) fillSpot(o, limit);
      }
    },
    refuseNextOrder(status: number, body: unknown) {
      refuseNext = { status, body };
    },
    position: () => position,
  };
}

/**
 * The spot and futures screens' calls (issue 16, docs/trading.md) on a LIVE Binance account: the
 * CcxtVenue of the user's keys and the market data both go through ccxt 4.5 to Binance's REST API, which
 * is replaced only at ccxt's HTTP boundary (`fetchImplementation`) by the recorded-style responses above.
 * The app runs with MARKET_DATA=live; its market-data hub is the app's own MarketHubService on
 * `CcxtVenue.publicData` as with MARKET_DATA=live, given the fake fetch (and a 25 ms poll, no ticker
 * cache, so a price the test sets reaches the runner within milliseconds). Each test asserts the
 * requests ccxt made (host, path, signed parameters) as well as what the screens' calls answer; the
 * tests share one account and run in order.
 */
describe('Spot and futures orders on a live Binance account (ccxt, recorded responses)', () => {
  let t: TestApp;
  let user: User;
  let hub: MarketHubService;
  const fake = fakeBinance();
  const call = apiCaller(() => t.app);
  const order = (body: Json) => call(user, 'POST', '/api/spot/order', { exchange: EX, ...body });
  const orders = async (symbol = SYM) => {
    const r = await call(user, 'GET', `/api/spot/orders?exchange=${EX}&symbol=${encodeURIComponent(symbol)}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { open: Json[]; recent: Json[]; fills: Json[] };
  };
  const one = async (id: string, symbol = SYM) => {
    const o = await orders(symbol);
    return [...o.open, ...o.recent].find((x) => x.id === id) ?? null;
  };
  const q = (text: string, params: unknown[] = []) => t.ctx.database.sql.query(text, params);
  /** The requests ccxt sent to place, query and cancel orders since `from` (an index into `fake.calls`). */
  const sent = (from: number, method: string, path: string) =>
    fake.calls.slice(from).filter((c) => c.method === method && c.path === path);

  beforeAll(async () => {
    t = await makeTestApp({ BOT_RUNNER: '1', MARKET_DATA: 'live', TRADING_SCREENS: 'all' });
    // The app's own live hub would reach the exchanges' real hosts: this test never lets it.
    const appHub = t.ctx.services.market as MarketHubService;
    appHub.sourceOf = () => {
      throw new Error('the app hub would reach the internet');
    };
    hub = new MarketHubService({
      source: (exchange) => CcxtVenue.publicData(exchange, { fetchImplementation: fake.fetchImplementation }),
      ttl: { ticker: 0, orderBook: 0, candles: 0 },
      pollMs: 25,
    });
    t.ctx.services.market = hub;
    (t.ctx.services.venues as DbVenueRegistry).factory = defaultVenueFactory(t.ctx, {
      fetchImplementation: fake.fetchImplementation,
      orderPollMs: 50,
    });
    runners.get(t.ctx)!.deps.retryBaseMs = 5;
    user = await createTestUser(t);
    const c = await call(user, 'POST', '/api/conectar_exchange', {
      exchange: EX,
      apiKey: KEY,
      apiSecret: SECRET,
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body).toMatchObject({ success: true, mode: 'live' });
  });
  afterAll(async () => {
    hub?.close();
    await t?.close();
  });

  it('reads the live market’s steps, minimums and price, and the account’s free balances', async () => {
    const from = fake.calls.length;
    const r = await call(user, 'GET', `/api/spot/market?exchange=${EX}&symbol=${encodeURIComponent(SYM)}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({
      success: true,
      exchange: EX,
      symbol: SYM,
      listed: true,
      base: 'BTC',
      quote: 'USDT',
      market: 'spot',
      amount_step: 0.00001,
      price_step: 0.01,
      min_amount: 0.00001,
      min_cost: 5,
      taker: 0.001,
      maker: 0.001,
      max_leverage: null,
      price: 95_000,
      base_free: 0.5,
      quote_free: 2_000,
    });
    const asked = fake.calls
      .slice(from)
      .map((c) => `${c.method} ${c.host}${c.path}${c.signed ? ' (signed)' : ''}`);
    // The market list and price from Binance (the hub's public ccxt instance), the balances signed.
    expect(asked).toContain('GET api.binance.com/api/v3/exchangeInfo');
    expect(asked).toContain('GET api.binance.com/api/v3/ticker/24hr');
    expect(asked).toContain('GET api.binance.com/api/v3/account (signed)');
    // A pair the exchange's list does not have is marked, nothing to trade.
    const eth = await call(user, 'GET', `/api/spot/market?exchange=${EX}&symbol=ETH/USDT`);
    expect(eth.body).toMatchObject({ listed: false, symbol: 'ETH/USDT', price: null });
    expect(fake.misses).toEqual([]);
  });

  it('sends a limit buy with TP and SL under our client order id, rounded to the steps; it rests open', async () => {
    const from = fake.calls.length;
    const r = await order({
      symbol: SYM,
      side: 'buy',
      type: 'limit',
      price: '90000.009',
      quantity: '0.0123456',
      tp: '99000.006',
      sl: '85000.004',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('✅ Order placed: buy 0.01234 BTC at 90000 USDT.');
    const id = r.body.order.id as string;
    expect(r.body.order).toMatchObject({
      exchange: EX,
      symbol: SYM,
      market: 'spot',
      side: 'buy',
      type: 'limit',
      price: 90_000,
      quantity: 0.01234,
      tp: 99_000.01,
      sl: 85_000,
      filled: 0,
      status: 'open',
      exit_state: 'waiting_entry',
      reduce_only: false,
    });
    const [entry] = await q(
      `SELECT client_order_id, venue_order_id, status FROM bot_orders WHERE bot_id = $1`,
      [id],
    );
    const posts = sent(from, 'POST', '/api/v3/order');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.host).toBe('api.binance.com');
    expect(posts[0]!.signed).toBe(true);
    expect(posts[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      timeInForce: 'GTC',
      price: '90000',
      quantity: '0.01234',
      newClientOrderId: entry!.client_order_id,
    });
    // Our client order id: the order's short strategy id and the entry's sequence number.
    expect(entry!.client_order_id).toBe(`${strategyIdOf(id)}-0`);
    expect(entry).toMatchObject({
      status: 'open',
      venue_order_id: String(fake.spot.get(entry!.client_order_id as string)!.orderId),
    });
    const list = await orders();
    expect(list.open.map((o) => [o.id, o.status])).toEqual([[id, 'open']]);
    expect(list.fills).toEqual([]);
    expect(fake.misses).toEqual([]);
  });

  it('DELETE sends the cancel to the exchange and the order ends cancelled', async () => {
    const [open] = (await orders()).open;
    const id = open!.id as string;
    const [entry] = await q(`SELECT client_order_id FROM bot_orders WHERE bot_id = $1`, [id]);
    const cid = entry!.client_order_id as string;
    const from = fake.calls.length;
    const del = await call(user, 'DELETE', `/api/spot/orders/${id}`);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(del.body).toMatchObject({ success: true, message: SPOT_MESSAGES.cancelled });
    expect(del.body.order).toMatchObject({ id, status: 'cancelled', filled: 0, exit_state: 'cancelled' });
    // Looked up by our client id, then cancelled by the exchange's order id.
    const lookups = sent(from, 'GET', '/api/v3/order');
    expect(lookups.map((c) => c.params.origClientOrderId)).toContain(cid);
    const cancels = sent(from, 'DELETE', '/api/v3/order');
    expect(cancels).toHaveLength(1);
    expect(cancels[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      orderId: String(fake.spot.get(cid)!.orderId),
    });
    expect(fake.spot.get(cid)!.status).toBe('CANCELED');
    const list = await orders();
    expect(list.open).toEqual([]);
    expect(list.recent[0]).toMatchObject({ id, status: 'cancelled' });
    expect(await q(`SELECT status FROM bot_orders WHERE bot_id = $1`, [id])).toEqual([
      { status: 'cancelled' },
    ]);
    expect(fake.misses).toEqual([]);
  });

  it('the exchange refusing the order (-2010) answers 422 with its reason; the order is kept as rejected', async () => {
    // Our check passes (the account shows 2,000 USDT free); Binance refuses anyway (funds moved meanwhile).
    const msg = 'Account has insufficient balance for requested action.';
    fake.refuseNextOrder(400, { code: -2010, msg });
    const from = fake.calls.length;
    const r = await order({ symbol: SYM, side: 'buy', type: 'limit', price: '94000', quantity: '0.02' });
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body).toMatchObject({ success: false, error: '❌ Failed to execute order.' });
    expect(r.body.error).toBe(SPOT_MESSAGES.executeFailed);
    expect(r.body.reason).toBe(`binance: insufficient balance (binance ${msg})`);
    expect(r.body.order).toMatchObject({ status: 'rejected', filled: 0, error: r.body.reason });
    const posts = sent(from, 'POST', '/api/v3/order');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.params).toMatchObject({ side: 'BUY', type: 'LIMIT', price: '94000', quantity: '0.02' });
    const list = await orders();
    expect(list.open).toEqual([]);
    expect(list.recent[0]).toMatchObject({ id: r.body.order.id, status: 'rejected', error: r.body.reason });
    expect(await q(`SELECT status FROM bot_orders WHERE bot_id = $1`, [r.body.order.id])).toEqual([
      { status: 'rejected' },
    ]);
    // Refused for funds, not for the key: nothing is paused.
    expect(await q(`SELECT status, problem FROM bots WHERE id = $1`, [r.body.order.id])).toEqual([
      { status: 'error', problem: null },
    ]);
    expect(fake.misses).toEqual([]);
  });

  it('a market buy answered filled sends its take profit as a limit sell (no reduceOnly on spot)', async () => {
    fake.setSpotPrice(95_000);
    const from = fake.calls.length;
    const r = await order({
      symbol: SYM,
      side: 'buy',
      type: 'market',
      quantity: '0.01',
      tp: '99000',
      sl: '90000',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.order.id as string;
    expect(r.body.message).toBe('✅ Order filled: buy 0.01 BTC at 95000 USDT.');
    expect(r.body.order).toMatchObject({
      type: 'market',
      price: null,
      status: 'filled',
      filled: 0.01,
      average: 95_000,
      cost: 950,
      exit_state: 'active',
      tp: 99_000,
      sl: 90_000,
    });
    // Binance took its 0.1 % commission in BTC (0.00001 BTC): 0.95 USDT at the fill price.
    expect(r.body.order.fee).toBeCloseTo(0.95, 10);
    const journal = await q(
      `SELECT role, side, type, price, amount, status, client_order_id FROM bot_orders WHERE bot_id = $1 ORDER BY created_at`,
      [id],
    );
    expect(journal.map((o) => [o.role, o.side, o.type, o.status])).toEqual([
      ['manual_entry', 'buy', 'market', 'filled'],
      ['manual_tp', 'sell', 'limit', 'open'],
    ]);
    const posts = sent(from, 'POST', '/api/v3/order');
    expect(posts.map((c) => c.params)).toEqual([
      expect.objectContaining({
        symbol: 'BTCUSDT',
        side: 'BUY',
        type: 'MARKET',
        quantity: '0.01',
        newClientOrderId: journal[0]!.client_order_id,
      }),
      expect.objectContaining({
        symbol: 'BTCUSDT',
        side: 'SELL',
        type: 'LIMIT',
        timeInForce: 'GTC',
        price: '99000',
        quantity: '0.01',
        newClientOrderId: journal[1]!.client_order_id,
      }),
    ]);
    expect(posts[0]!.params).not.toHaveProperty('price');
    for (const p of posts) expect(p.params).not.toHaveProperty('reduceOnly');
    expect((await orders()).open.map((o) => [o.id, o.exit_state])).toEqual([[id, 'active']]);

    // The market reaches the take profit: the exchange fills it while it rests. The venue's order poll
    // (every 50 ms here, LIVE_ORDER_POLL_MS in production) finds it gone from the open orders, reads it
    // filled and pushes it: the round trip is recorded with no user action.
    const seen = fake.calls.length;
    fake.setSpotPrice(99_000);
    expect(fake.spot.get(journal[1]!.client_order_id as string)!.status).toBe('FILLED');
    await until(async () => (await one(id))?.exit_state === 'tp_filled');
    expect(sent(seen, 'DELETE', '/api/v3/order')).toEqual([]);
    const done = await one(id);
    expect(done).toMatchObject({ id, status: 'filled', exit_state: 'tp_filled' });
    // 0.01 × (99,000 − 95,000) − 0.95 (entry commission) − 0.99 (the take profit's: 0.1 % of 990 USDT).
    // Binance's order query gives no commission: the venue reads it from GET /api/v3/myTrades.
    expect(done!.pnl).toBeCloseTo(38.06, 8);
    expect(sent(seen, 'GET', '/api/v3/myTrades')).toHaveLength(1);
    const fills = (await orders()).fills.filter((f) => f.order_id === id);
    expect(fills.map((f) => [f.role, f.side, f.price, f.quantity])).toEqual([
      ['take_profit', 'sell', 99_000, 0.01],
      ['entry', 'buy', 95_000, 0.01],
    ]);
    expect(fake.misses).toEqual([]);
  });

  it('ticks reaching the stop loss cancel the take profit on the exchange and sell at market', async () => {
    fake.setSpotPrice(95_000);
    const r = await order({
      symbol: SYM,
      side: 'buy',
      type: 'market',
      quantity: '0.01',
      tp: '120000',
      sl: '90000',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.order.id as string;
    expect(r.body.order).toMatchObject({ status: 'filled', exit_state: 'active' });
    const [tp] = await q(`SELECT client_order_id FROM bot_orders WHERE bot_id = $1 AND role = 'manual_tp'`, [
      id,
    ]);
    const tpCid = tp!.client_order_id as string;
    const from = fake.calls.length;
    fake.setSpotPrice(91_000); // above the stop loss: quiet
    await until(async () => sent(from, 'GET', '/api/v3/ticker/24hr').length >= 3);
    expect((await one(id))!.exit_state).toBe('active');
    fake.setSpotPrice(89_000);
    const done = await until(async () => {
      const o = await one(id);
      return o?.exit_state === 'sl_filled' ? o : null;
    });
    expect(done.status).toBe('filled');
    const cancels = sent(from, 'DELETE', '/api/v3/order');
    expect(cancels.map((c) => c.params.orderId)).toEqual([String(fake.spot.get(tpCid)!.orderId)]);
    expect(fake.spot.get(tpCid)!.status).toBe('CANCELED');
    const posts = sent(from, 'POST', '/api/v3/order');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'MARKET',
      quantity: '0.01',
    });
    expect(posts[0]!.params).not.toHaveProperty('reduceOnly');
    // Sold at 89,000, commission 0.89 USDT: 0.01 × (89,000 − 95,000) − 0.95 − 0.89.
    expect(done.pnl).toBeCloseTo(-61.84, 8);
    const rows = await q(
      `SELECT role, side, type, status FROM bot_orders WHERE bot_id = $1 ORDER BY created_at`,
      [id],
    );
    expect(rows.map((o) => [o.role, o.side, o.type, o.status])).toEqual([
      ['manual_entry', 'buy', 'market', 'filled'],
      ['manual_tp', 'sell', 'limit', 'cancelled'],
      ['manual_sl', 'sell', 'market', 'filled'],
    ]);
    const codes = (await q('SELECT code FROM bot_events WHERE bot_id = $1', [id])).map((e) => e.code);
    expect(codes).toContain('sl_hit');
    expect(fake.misses).toEqual([]);
  });

  it('futures (USDⓈ-M): a market long goes to the futures endpoint; close sends a reduce-only market sell', async () => {
    const perp = encodeURIComponent(PERP);
    const m = await call(user, 'GET', `/api/spot/market?exchange=${EX}&symbol=${perp}`);
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    expect(m.body).toMatchObject({
      symbol: PERP,
      listed: true,
      market: 'swap',
      base: 'BTC',
      quote: 'USDT',
      amount_step: 0.001,
      price_step: 0.1,
      min_amount: 0.001,
      min_cost: 100,
      // ccxt gives no maximum leverage for Binance's markets (docs/venues.md): the platform's own cap.
      max_leverage: 200,
      price: 95_000,
      quote_free: 5_000,
    });
    const lev = await call(user, 'POST', '/api/set_leverage', { exchange: EX, symbol: SYM, leverage: 5 });
    expect(lev.status, JSON.stringify(lev.body)).toBe(200);

    const from = fake.calls.length;
    const r = await order({ symbol: PERP, side: 'long', type: 'market', quantity: '0.0105' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('✅ Order filled: buy 0.01 BTC at 95000 USDT.');
    expect(r.body.order).toMatchObject({
      symbol: PERP,
      market: 'swap',
      side: 'buy',
      type: 'market',
      quantity: 0.01,
      filled: 0.01,
      average: 95_000,
      status: 'filled',
      reduce_only: false,
    });
    const [entry] = await q(`SELECT client_order_id FROM bot_orders WHERE bot_id = $1`, [r.body.order.id]);
    // Isolated margin and the stored leverage are set on the market before the order.
    expect(sent(from, 'POST', '/fapi/v1/marginType')[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      marginType: 'ISOLATED',
    });
    expect(sent(from, 'POST', '/fapi/v1/leverage')[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      leverage: '5',
    });
    expect(sent(from, 'POST', '/api/v3/order')).toEqual([]);
    const posts = sent(from, 'POST', '/fapi/v1/order');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.host).toBe('fapi.binance.com');
    expect(posts[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'MARKET',
      quantity: '0.01',
      newClientOrderId: entry!.client_order_id,
    });
    expect(posts[0]!.params).not.toHaveProperty('reduceOnly');
    expect(fake.position()).toEqual({ amt: 0.01, entry: 95_000 });

    const closeFrom = fake.calls.length;
    const c = await call(user, 'POST', '/api/futures/close', { exchange: EX, symbol: PERP });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body).toMatchObject({ success: true, message: SPOT_MESSAGES.closing });
    expect(c.body.order).toMatchObject({
      symbol: PERP,
      side: 'sell',
      type: 'market',
      quantity: 0.01,
      filled: 0.01,
      reduce_only: true,
      status: 'filled',
    });
    expect(
      sent(closeFrom, 'GET', '/fapi/v3/positionRisk').length +
        sent(closeFrom, 'GET', '/fapi/v2/positionRisk').length,
    ).toBeGreaterThan(0);
    const closes = sent(closeFrom, 'POST', '/fapi/v1/order');
    expect(closes).toHaveLength(1);
    expect(closes[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'MARKET',
      quantity: '0.01',
      reduceOnly: 'true',
    });
    expect(fake.position().amt).toBe(0);
    const again = await call(user, 'POST', '/api/futures/close', { exchange: EX, symbol: PERP });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('❌ There is no open position on BTC/USDT:USDT.');
    const fills = (await orders(PERP)).fills;
    expect(fills.map((f) => [f.role, f.side, f.quantity, f.symbol])).toEqual([
      ['close', 'sell', 0.01, PERP],
      ['entry', 'buy', 0.01, PERP],
    ]);

    const f = await call(user, 'GET', `/api/futures/funding?exchange=${EX}&symbol=${perp}`);
    expect(f.status, JSON.stringify(f.body)).toBe(200);
    expect(f.body).toEqual({
      success: true,
      exchange: EX,
      symbol: PERP,
      rate: 0.0001,
      next_funding_time: 1736956800000,
      mark_price: 95_000,
    });
    expect(fake.misses).toEqual([]);
  });

  // A fill made on the exchange while an order rests reaches the runner through the venue's order poll
  // (CcxtVenue.pollOrders, unit-tested with partial fills in packages/venues/test/ccxt-venue.test.ts);
  // the take profit test above goes through it end to end.
});
