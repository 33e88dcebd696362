import { describe, expect, it } from 'vitest';
import { CcxtVenue, InvalidOrderError, NotSupportedError, UnsupportedFeatureError } from '../src/index';

/**
 * Live derivatives through ccxt's unified calls, against recorded-style responses at ccxt's HTTP
 * boundary (`fetchImplementation`): Binance USDⓈ-M and Bybit linear. Nothing touches the internet.
 */

type Reply = { status?: number; body: unknown };
type Call = { method: string; url: URL; body: string };
type Route = (url: URL, method: string, body: string) => Reply | undefined;

function fakeHttp(routes: Route) {
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
        headers: { 'content-type': 'application/json' },
      }),
    );
  };
  return { calls, misses, fetchImplementation };
}

/** Parameters of a call, from the query string or a form / JSON body. */
function paramsOf(c: Call): Record<string, string> {
  const out: Record<string, string> = Object.fromEntries(c.url.searchParams);
  if (c.body.startsWith('{')) Object.assign(out, JSON.parse(c.body) as Record<string, string>);
  else if (c.body) Object.assign(out, Object.fromEntries(new URLSearchParams(c.body)));
  return out;
}

// --- Binance USDⓈ-M (fapi) ----------------------------------------------------------------------

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

const DAPI_EXCHANGE_INFO = {
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

const FAPI_ORDER = {
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

const POSITION_RISK = [
  {
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
  },
];

/** The spot instance's market list (transfers and margin go through it). */
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
      orderTypes: ['LIMIT', 'MARKET'],
      isSpotTradingAllowed: true,
      isMarginTradingAllowed: true,
      filters: [
        { filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '1000000', tickSize: '0.01' },
        { filterType: 'LOT_SIZE', minQty: '0.00001', maxQty: '9000', stepSize: '0.00001' },
        { filterType: 'NOTIONAL', minNotional: '5', applyMinToMarket: true },
      ],
      permissions: [],
      permissionSets: [['SPOT', 'MARGIN']],
    },
  ],
};

/** USDⓈ-M notional brackets (ccxt reads them for the maintenance margin of positions). */
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

function fakeBinanceFutures(extra: Route = () => undefined) {
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

function binance(extra?: Route) {
  const fake = fakeBinanceFutures(extra);
  const v = new CcxtVenue({
    exchange: 'binance',
    apiKey: 'k'.repeat(64),
    secret: 's'.repeat(64),
    fetchImplementation: fake.fetchImplementation,
  });
  return { v, ...fake };
}

describe('CcxtVenue derivatives: Binance USDⓈ-M (recorded responses)', () => {
  it('loads the swap markets on their own instance: contracts, settle, precision, minimum value', async () => {
    const { v, calls } = binance();
    const markets = await v.loadMarkets();
    expect(markets['BTC/USDT']).toMatchObject({ amountStep: 0.00001 });
    expect(markets['BTC/USDT']?.type).toBeUndefined();
    expect(markets['BTC/USDT:USDT']).toMatchObject({
      symbol: 'BTC/USDT:USDT',
      type: 'swap',
      linear: true,
      inverse: false,
      settle: 'USDT',
      contractSize: 1,
      amountStep: 0.001,
      priceStep: 0.1,
      minAmount: 0.001,
      minCost: 100,
    });
    expect(markets['BTC/USD:BTC']).toMatchObject({ inverse: true, settle: 'BTC', contractSize: 100 });
    // Each list was fetched once: spot by the spot instance, USDⓈ-M and COIN-M by the swap one.
    const lists = calls
      .map((c) => `${c.url.hostname}${c.url.pathname}`)
      .filter((u) => u.endsWith('exchangeInfo'));
    expect(lists.sort()).toEqual([
      'api.binance.com/api/v3/exchangeInfo',
      'dapi.binance.com/dapi/v1/exchangeInfo',
      'fapi.binance.com/fapi/v1/exchangeInfo',
    ]);
    await v.loadMarkets();
    expect(calls.filter((c) => c.url.pathname.endsWith('exchangeInfo'))).toHaveLength(3);
  });

  it('sets isolated margin and the leverage (setMarginMode, setLeverage)', async () => {
    const { v, calls, misses } = binance();
    expect(await v.setLeverage(10, 'BTC/USDT:USDT')).toBe(10);
    expect(misses).toEqual([]);
    const marginType = calls.find((c) => c.url.pathname === '/fapi/v1/marginType');
    expect(paramsOf(marginType!)).toMatchObject({ symbol: 'BTCUSDT', marginType: 'ISOLATED' });
    const leverage = calls.find((c) => c.url.pathname === '/fapi/v1/leverage');
    expect(paramsOf(leverage!)).toMatchObject({ symbol: 'BTCUSDT', leverage: '10' });
    await expect(v.setLeverage(0, 'BTC/USDT:USDT')).rejects.toBeInstanceOf(InvalidOrderError);
  });

  it('"No need to change margin type" (-4046) is not an error', async () => {
    const { v } = binance((url) =>
      url.pathname === '/fapi/v1/marginType'
        ? { status: 400, body: { code: -4046, msg: 'No need to change margin type.' } }
        : undefined,
    );
    expect(await v.setLeverage(20, 'BTC/USDT:USDT')).toBe(20);
  });

  it('places a reduce-only market order on the swap', async () => {
    const { v, calls } = binance();
    const o = await v.createOrder({
      symbol: 'BTC/USDT:USDT',
      side: 'sell',
      type: 'market',
      amount: 0.0104,
      reduceOnly: true,
      clientOrderId: 'bot7-0002',
    });
    expect(o).toMatchObject({ id: '4113946481', symbol: 'BTC/USDT:USDT', amount: 0.01, reduceOnly: true });
    const post = calls.find((c) => c.method === 'POST' && c.url.pathname === '/fapi/v1/order');
    expect(paramsOf(post!)).toMatchObject({
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'MARKET',
      quantity: '0.01',
      reduceOnly: 'true',
      newClientOrderId: 'bot7-0002',
    });
  });

  it('reads positions, liquidations and the funding rate', async () => {
    const { v } = binance();
    const [pos] = await v.fetchPositions(['BTC/USDT:USDT']);
    expect(pos).toMatchObject({
      symbol: 'BTC/USDT:USDT',
      marketType: 'Perpetual',
      side: 'long',
      contracts: 0.01,
      entryPrice: 94_000,
      markPrice: 95_000,
      unrealizedPnl: 10,
      liquidationPrice: 85_100.12345678,
      settle: 'USDT',
      marginMode: 'isolated',
    });
    expect(await v.fetchMyLiquidations('BTC/USDT:USDT', 1736800000000)).toEqual([
      {
        symbol: 'BTC/USDT:USDT',
        side: 'long',
        contracts: 0.01,
        price: 85_100.1,
        ts: 1736900000100,
        loss: 0,
        settle: 'USDT',
      },
    ]);
    expect(await v.fetchFundingRate('BTC/USDT:USDT')).toEqual({
      symbol: 'BTC/USDT:USDT',
      rate: 0.0001,
      nextFundingTime: 1736956800000,
      timestamp: 1736942400000,
    });
  });

  it('places an isolated margin order that borrows (Margin market type on the spot symbol)', async () => {
    const { v, calls } = binance((url, method) =>
      url.pathname === '/sapi/v1/margin/order' && method === 'POST'
        ? {
            body: {
              symbol: 'BTCUSDT',
              orderId: 28,
              clientOrderId: 'bot8-0001',
              transactTime: 1736942401000,
              price: '90000.00',
              origQty: '0.01000',
              executedQty: '0',
              cummulativeQuoteQty: '0',
              status: 'NEW',
              timeInForce: 'GTC',
              type: 'LIMIT',
              side: 'BUY',
              isIsolated: true,
            },
          }
        : undefined,
    );
    expect(await v.setLeverage(3, 'BTC/USDT')).toBe(3);
    expect(await v.fetchLeverage('BTC/USDT')).toBe(3);
    const o = await v.createOrder({
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: 90_000,
      marginMode: 'isolated',
      clientOrderId: 'bot8-0001',
    });
    expect(o).toMatchObject({ id: '28', status: 'open', marginMode: 'isolated' });
    expect(paramsOf(calls.find((c) => c.url.pathname === '/sapi/v1/margin/order')!)).toMatchObject({
      symbol: 'BTCUSDT',
      isIsolated: 'true',
      sideEffectType: 'MARGIN_BUY',
      newClientOrderId: 'bot8-0001',
    });
  });

  it('transfers between spot and USDⓈ-M', async () => {
    const { v, calls } = binance();
    await v.transfer('USDT', 250, 'spot', 'swap');
    const t = calls.find((c) => c.url.pathname === '/sapi/v1/asset/transfer');
    expect(paramsOf(t!)).toMatchObject({ asset: 'USDT', amount: '250', type: 'MAIN_UMFUTURE' });
  });
});

// --- Bybit linear (v5) ---------------------------------------------------------------------------

const ok = (result: unknown) => ({
  body: { retCode: 0, retMsg: 'OK', result, retExtInfo: {}, time: 1736942400000 },
});

const BYBIT_LINEAR = {
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

const BYBIT_POSITION = {
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

function fakeBybit(extra: Route = () => undefined) {
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

function bybit(extra?: Route) {
  const fake = fakeBybit(extra);
  const v = new CcxtVenue({
    exchange: 'bybit',
    apiKey: 'k'.repeat(18),
    secret: 's'.repeat(36),
    fetchImplementation: fake.fetchImplementation,
  });
  return { v, ...fake };
}

describe('CcxtVenue derivatives: Bybit linear (recorded responses)', () => {
  it('lists the linear swap with its leverage limit', async () => {
    const { v } = bybit();
    const m = (await v.loadMarkets())['BTC/USDT:USDT'];
    expect(m).toMatchObject({
      type: 'swap',
      linear: true,
      settle: 'USDT',
      contractSize: 1,
      amountStep: 0.001,
      priceStep: 0.1,
      minAmount: 0.001,
      maxLeverage: 100,
    });
  });

  it('sets isolated margin and leverage; "leverage not modified" (110043) is fine', async () => {
    const { v, calls, misses } = bybit();
    expect(await v.setLeverage(10, 'BTC/USDT:USDT')).toBe(10);
    expect(misses).toEqual([]);
    const lev = calls.find((c) => c.url.pathname === '/v5/position/set-leverage');
    expect(paramsOf(lev!)).toMatchObject({
      category: 'linear',
      symbol: 'BTCUSDT',
      buyLeverage: '10',
      sellLeverage: '10',
    });
    expect(paramsOf(calls.find((c) => c.url.pathname === '/v5/account/set-margin-mode')!)).toMatchObject({
      setMarginMode: 'ISOLATED_MARGIN',
    });
    await expect(v.setLeverage(101, 'BTC/USDT:USDT')).rejects.toThrow(/from 1 to 100/);

    const same = bybit((url) =>
      url.pathname === '/v5/position/set-leverage'
        ? { body: { retCode: 110043, retMsg: 'leverage not modified', result: {}, retExtInfo: {}, time: 1 } }
        : undefined,
    ).v;
    expect(await same.setLeverage(10, 'BTC/USDT:USDT')).toBe(10);
  });

  it('places a reduce-only limit order', async () => {
    const { v, calls } = bybit();
    const o = await v.createOrder({
      symbol: 'BTC/USDT:USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: 90_000.04,
      reduceOnly: true,
      clientOrderId: 'bot9-0001',
    });
    expect(o).toMatchObject({
      id: '1321003749386327552',
      clientOrderId: 'bot9-0001',
      price: 90_000,
      reduceOnly: true,
    });
    expect(paramsOf(calls.find((c) => c.url.pathname === '/v5/order/create')!)).toMatchObject({
      category: 'linear',
      symbol: 'BTCUSDT',
      side: 'Buy',
      orderType: 'Limit',
      qty: '0.01',
      price: '90000',
      reduceOnly: true,
      orderLinkId: 'bot9-0001',
    });
  });

  it('reads a short position and the funding rate', async () => {
    const { v } = bybit();
    expect(await v.fetchPositions(['BTC/USDT:USDT'])).toMatchObject([
      {
        symbol: 'BTC/USDT:USDT',
        side: 'short',
        contracts: 0.01,
        entryPrice: 96_000,
        markPrice: 95_000,
        leverage: 10,
        liquidationPrice: 105_000,
        unrealizedPnl: 10,
        settle: 'USDT',
      },
    ]);
    expect(await v.fetchFundingRate('BTC/USDT:USDT')).toMatchObject({
      symbol: 'BTC/USDT:USDT',
      rate: 0.000125,
      nextFundingTime: 1736956800000,
    });
  });
});

describe('CcxtVenue derivatives: unsupported capabilities', () => {
  it('names the exchange and the missing capability', async () => {
    const kraken = new CcxtVenue({ exchange: 'kraken', apiKey: 'k', secret: 'c2VjcmV0' });
    const err = await kraken.setLeverage(5, 'BTC/USD:BTC').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedFeatureError);
    expect(err).toBeInstanceOf(NotSupportedError);
    expect((err as UnsupportedFeatureError).message).toBe(
      'kraken does not support setLeverage through its API',
    );
    expect((err as UnsupportedFeatureError).capability).toBe('setLeverage');
    expect((err as UnsupportedFeatureError).action).toBe('stop');
    await expect(kraken.fetchBalance({ type: 'swap' })).rejects.toThrow(
      'kraken does not support a derivatives wallet through its API',
    );
    await expect(kraken.fetchFundingRate('BTC/USD:BTC')).rejects.toThrow(
      'kraken does not support fetchFundingRate through its API',
    );
    const coinbase = new CcxtVenue({
      exchange: 'coinbaseexchange',
      apiKey: 'k',
      secret: 'c2VjcmV0',
      password: 'p',
    });
    await expect(coinbase.setLeverage(3, 'BTC/USDT')).rejects.toThrow(
      'coinbaseexchange does not support margin trading through its API',
    );
    await expect(coinbase.fetchPositions()).rejects.toThrow(
      'coinbaseexchange does not support fetchPositions through its API',
    );
  });
});
