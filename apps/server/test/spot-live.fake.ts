/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment -- recorded JSON handled loosely */
// A fake Binance (spot, USDⓈ-M futures) at ccxt's HTTP boundary, for spot-live.test.ts: recorded-style
// responses and a small matching engine for one key. Kept apart from the tests so each file stays one concern.

type Json = Record<string, any>;

export const KEY = 'liveSpotKey4Hq8Zt2Wm6Rk1Pv9';
export const SECRET = 'liveSpotSecret_Jd3Nx7Bc0Lf5Gs8Ty2Ua6';

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
export function fakeBinance() {
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
