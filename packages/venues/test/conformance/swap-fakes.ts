import { CcxtVenue } from '../../src/live';

/**
 * Recorded-style Binance USDⓈ-M and Bybit v5 linear responses behind ccxt's fetch (one copy,
 * shared by test/ccxt-derivatives.test.ts and the conformance tests that need swap markets).
 */
export type Reply = { status?: number; body: unknown; headers?: Record<string, string> };
export type Call = { method: string; url: URL; body: string };
export type Route = (url: URL, method: string, body: string) => Reply | undefined;

export function fakeHttp(routes: Route) {
  const calls: Call[] = [];
  const misses: string[] = [];
  const fetchImplementation = (u: string, init: Record<string, unknown>): Promise<Response> => {
    const url = new URL(u);
    const method = typeof init.method === 'string' ? init.method : 'GET';
    const body = typeof init.body === 'string' ? init.body : '';
    calls.push({ method, url, body });
    let r = routes(url, method, body);
    if (!r) {
      misses.push(`${method} ${url.hostname}${url.pathname}`);
      r = { status: 404, body: { code: -1, msg: `no fake for ${method} ${url.pathname}` } };
    }
    return Promise.resolve(
      new Response(JSON.stringify(r.body), {
        status: r.status ?? 200,
        headers: { 'content-type': 'application/json', ...r.headers },
      }),
    );
  };
  return { calls, misses, fetchImplementation };
}

/** Parameters of a call, from the query string or a form / JSON body. */
export function paramsOf(c: Call): Record<string, string> {
  const out: Record<string, string> = Object.fromEntries(c.url.searchParams);
  if (c.body.startsWith('{')) Object.assign(out, JSON.parse(c.body) as Record<string, string>);
  else if (c.body) Object.assign(out, Object.fromEntries(new URLSearchParams(c.body)));
  return out;
}

// --- Binance USDⓈ-M (fapi) ----------------------------------------------------------------------

export const FAPI_EXCHANGE_INFO = {
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

export const DAPI_EXCHANGE_INFO = {
  timezone: 'UTC',
  serverTime: 1736942400000,
  rateLimits: [],
  exchangeFilters: [],
  symbols: [
    {
      symbol: 'BTCUSD_PERP',
      pair: 'BTCUSD',
      contractType: 'PERPETUAL',
      deliveryDate: 4133404800000,
      onboardDate: 1597042800000,
      contractStatus: 'TRADING',
      contractSize: 100,
      marginAsset: 'BTC',
      maintMarginPercent: '2.5000',
      requiredMarginPercent: '5.0000',
      baseAsset: 'BTC',
      quoteAsset: 'USD',
      pricePrecision: 1,
      quantityPrecision: 0,
      baseAssetPrecision: 8,
      quotePrecision: 8,
      equalQtyPrecision: 4,
      maxMoveOrderLimit: 10000,
      triggerProtect: '0.0500',
      underlyingType: 'COIN',
      underlyingSubType: [],
      filters: [
        { minPrice: '1000', maxPrice: '4520958', filterType: 'PRICE_FILTER', tickSize: '0.1' },
        { stepSize: '1', filterType: 'LOT_SIZE', maxQty: '1000000', minQty: '1' },
        { stepSize: '1', filterType: 'MARKET_LOT_SIZE', maxQty: '60000', minQty: '1' },
        { limit: 200, filterType: 'MAX_NUM_ORDERS' },
        {
          multiplierUp: '1.0500',
          multiplierDown: '0.9500',
          filterType: 'PERCENT_PRICE',
          multiplierDecimal: '4',
        },
      ],
      orderTypes: ['LIMIT', 'MARKET', 'STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET'],
      timeInForce: ['GTC', 'IOC', 'FOK', 'GTX'],
      liquidationFee: '0.015000',
      marketTakeBound: '0.05',
    },
  ],
};

export const FAPI_ORDER = {
  orderId: 4113946481,
  symbol: 'BTCUSDT',
  status: 'NEW',
  clientOrderId: 'bot7-0002',
  price: '0.00',
  avgPrice: '0.00',
  origQty: '0.010',
  executedQty: '0.000',
  cumQty: '0.000',
  cumQuote: '0.00000',
  timeInForce: 'GTC',
  type: 'MARKET',
  reduceOnly: true,
  closePosition: false,
  side: 'SELL',
  positionSide: 'BOTH',
  stopPrice: '0.00',
  workingType: 'CONTRACT_PRICE',
  priceProtect: false,
  origType: 'MARKET',
  priceMatch: 'NONE',
  selfTradePreventionMode: 'EXPIRE_MAKER',
  goodTillDate: 0,
  updateTime: 1736942401000,
};

/** An isolated long: 0.01 BTC at 94,000, 94.1 USDT of isolated margin, liquidated at 85,100.12. */
export const BINANCE_ISOLATED = {
  symbol: 'BTCUSDT',
  positionSide: 'BOTH',
  positionAmt: '0.010',
  entryPrice: '94000.0',
  breakEvenPrice: '94047.0',
  markPrice: '95000.00000000',
  unRealizedProfit: '10.00000000',
  liquidationPrice: '85100.12345678',
  isolatedMargin: '94.10000000',
  notional: '950.00000000',
  marginAsset: 'USDT',
  isolatedWallet: '94.00000000',
  initialMargin: '95.00000000',
  maintMargin: '3.80000000',
  positionInitialMargin: '95.00000000',
  openOrderInitialMargin: '0',
  adl: 1,
  bidNotional: '0',
  askNotional: '0',
  updateTime: 1736942400000,
};

export const POSITION_RISK = [BINANCE_ISOLATED];

/** The spot instance's market list (transfers and margin go through it). */
export const SPOT_EXCHANGE_INFO = {
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

/** USDⓈ-M notional brackets (ccxt reads them for the maintenance margin of positions). */
export const LEVERAGE_BRACKETS = [
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
      {
        bracket: 2,
        initialLeverage: 100,
        notionalCap: 600000,
        notionalFloor: 50000,
        maintMarginRatio: 0.005,
        cum: 50,
      },
    ],
  },
];

export function fakeBinanceFutures(extra: Route = () => undefined) {
  return fakeHttp((url, method, body) => {
    const e = extra(url, method, body);
    if (e) return e;
    const p = url.pathname;
    if (url.hostname === 'fapi.binance.com') {
      if (p === '/fapi/v1/exchangeInfo') return { body: FAPI_EXCHANGE_INFO };
      if (p === '/fapi/v1/leverageBracket') return { body: LEVERAGE_BRACKETS };
      if (p === '/fapi/v1/marginType' && method === 'POST') return { body: { code: 200, msg: 'success' } };
      if (p === '/fapi/v1/leverage' && method === 'POST')
        return {
          body: {
            symbol: 'BTCUSDT',
            leverage: Number(paramsOf({ method, url, body }).leverage),
            maxNotionalValue: '1000000',
          },
        };
      if (p === '/fapi/v1/order' && method === 'POST') return { body: FAPI_ORDER };
      if (p === '/fapi/v3/positionRisk' || p === '/fapi/v2/positionRisk') return { body: POSITION_RISK };
      if (p === '/fapi/v1/premiumIndex')
        return {
          body: {
            symbol: 'BTCUSDT',
            markPrice: '95000.00000000',
            indexPrice: '95010.00000000',
            estimatedSettlePrice: '95005.00000000',
            lastFundingRate: '0.00010000',
            interestRate: '0.00010000',
            nextFundingTime: 1736956800000,
            time: 1736942400000,
          },
        };
      if (p === '/fapi/v1/forceOrders')
        return {
          body: [
            {
              orderId: 6071832819,
              symbol: 'BTCUSDT',
              status: 'FILLED',
              clientOrderId: 'autoclose-1736900000000000',
              price: '85000.00',
              avgPrice: '85100.10',
              origQty: '0.010',
              executedQty: '0.010',
              cumQuote: '851.00100',
              timeInForce: 'IOC',
              type: 'LIMIT',
              reduceOnly: false,
              closePosition: false,
              side: 'SELL',
              positionSide: 'BOTH',
              stopPrice: '0',
              workingType: 'CONTRACT_PRICE',
              origType: 'LIMIT',
              time: 1736900000000,
              updateTime: 1736900000100,
            },
          ],
        };
    }
    if (url.hostname === 'dapi.binance.com' && p === '/dapi/v1/exchangeInfo')
      return { body: DAPI_EXCHANGE_INFO };
    if (url.hostname === 'api.binance.com' && p === '/api/v3/exchangeInfo')
      return { body: SPOT_EXCHANGE_INFO };
    if (url.hostname === 'api.binance.com' && p === '/sapi/v1/asset/transfer' && method === 'POST')
      return { body: { tranId: 13526853623 } };
    return undefined;
  });
}

export function binance(extra?: Route) {
  const fake = fakeBinanceFutures(extra);
  const v = new CcxtVenue({
    exchange: 'binance',
    apiKey: 'k'.repeat(64),
    secret: 's'.repeat(64),
    fetchImplementation: fake.fetchImplementation,
  });
  return { v, ...fake };
}

export const ok = (result: unknown) => ({
  body: { retCode: 0, retMsg: 'OK', result, retExtInfo: {}, time: 1736942400000 },
});

export const BYBIT_LINEAR = {
  category: 'linear',
  list: [
    {
      symbol: 'BTCUSDT',
      contractType: 'LinearPerpetual',
      status: 'Trading',
      baseCoin: 'BTC',
      quoteCoin: 'USDT',
      launchTime: '1585526400000',
      deliveryTime: '0',
      deliveryFeeRate: '',
      priceScale: '2',
      leverageFilter: { minLeverage: '1', maxLeverage: '100.00', leverageStep: '0.01' },
      priceFilter: { minPrice: '0.10', maxPrice: '1999999.80', tickSize: '0.10' },
      lotSizeFilter: {
        maxOrderQty: '1190.000',
        minOrderQty: '0.001',
        qtyStep: '0.001',
        postOnlyMaxOrderQty: '1190.000',
        maxMktOrderQty: '500.000',
        minNotionalValue: '5',
      },
      unifiedMarginTrade: true,
      fundingInterval: 480,
      settleCoin: 'USDT',
      copyTrading: 'both',
      upperFundingRate: '0.00375',
      lowerFundingRate: '-0.00375',
      isPreListing: false,
      preListingInfo: null,
    },
  ],
  nextPageCursor: '',
};

export const BYBIT_POSITION = {
  positionIdx: 0,
  riskId: 1,
  riskLimitValue: '2000000',
  symbol: 'BTCUSDT',
  side: 'Sell',
  size: '0.010',
  avgPrice: '96000',
  positionValue: '960',
  tradeMode: 1,
  positionStatus: 'Normal',
  autoAddMargin: 0,
  adlRankIndicator: 2,
  leverage: '10',
  positionBalance: '96.5',
  markPrice: '95000',
  liqPrice: '105000',
  bustPrice: '',
  positionMM: '5',
  positionIM: '96',
  tpslMode: 'Full',
  takeProfit: '0',
  stopLoss: '0',
  trailingStop: '0',
  unrealisedPnl: '10',
  curRealisedPnl: '-0.5',
  cumRealisedPnl: '-0.5',
  seq: 1,
  isReduceOnly: false,
  mmrSysUpdateTime: '',
  leverageSysUpdatedTime: '',
  sessionAvgPrice: '',
  createdTime: '1736900000000',
  updatedTime: '1736942400000',
};

export function fakeBybit(extra: Route = () => undefined) {
  return fakeHttp((url, method, body) => {
    const e = extra(url, method, body);
    if (e) return e;
    if (url.hostname !== 'api.bybit.com') return undefined;
    const p = url.pathname;
    if (p === '/v5/market/instruments-info') {
      return url.searchParams.get('category') === 'linear'
        ? ok(BYBIT_LINEAR)
        : ok({ category: url.searchParams.get('category'), list: [], nextPageCursor: '' });
    }
    // With keys ccxt reads the coin list first.
    if (p === '/v5/asset/coin/query-info')
      return ok({
        rows: ['BTC', 'USDT'].map((coin) => ({ name: coin, coin, remainAmount: '1000000', chains: [] })),
      });
    if (p === '/v5/user/query-api')
      return ok({
        id: '13770661',
        readOnly: 0,
        permissions: { ContractTrade: ['Order', 'Position'] },
        unified: 0,
        uta: 1,
        isMaster: true,
      });
    if (p === '/v5/account/info')
      return ok({
        marginMode: 'REGULAR_MARGIN',
        updatedTime: '1697078946000',
        unifiedMarginStatus: 4,
        dcpStatus: 'OFF',
      });
    if (p === '/v5/account/set-margin-mode' && method === 'POST') return ok({ reasons: [] });
    if (p === '/v5/position/set-leverage' && method === 'POST') return ok({});
    if (p === '/v5/order/create' && method === 'POST')
      return ok({ orderId: '1321003749386327552', orderLinkId: 'bot9-0001' });
    if (p === '/v5/position/list')
      return ok({ list: [BYBIT_POSITION], nextPageCursor: '', category: 'linear' });
    if (p === '/v5/market/tickers')
      return ok({
        category: 'linear',
        list: [
          {
            symbol: 'BTCUSDT',
            lastPrice: '95000.00',
            indexPrice: '95010.00',
            markPrice: '95000.00',
            prevPrice24h: '94000.00',
            price24hPcnt: '0.010638',
            highPrice24h: '96000.00',
            lowPrice24h: '93000.00',
            prevPrice1h: '94900.00',
            openInterest: '50000',
            openInterestValue: '4750000000',
            turnover24h: '1000000000',
            volume24h: '10500',
            fundingRate: '0.000125',
            nextFundingTime: '1736956800000',
            predictedDeliveryPrice: '',
            basisRate: '',
            deliveryFeeRate: '',
            deliveryTime: '0',
            ask1Size: '1.2',
            bid1Price: '94999.90',
            ask1Price: '95000.00',
            bid1Size: '2.5',
          },
        ],
      });
    return undefined;
  });
}

export function bybit(extra?: Route) {
  const fake = fakeBybit(extra);
  const v = new CcxtVenue({
    exchange: 'bybit',
    apiKey: 'k'.repeat(18),
    secret: 's'.repeat(36),
    fetchImplementation: fake.fetchImplementation,
  });
  return { v, ...fake };
}
