import { describe, expect, it } from 'vitest';
import type { Order } from '../src/types';
import {
  AuthenticationError,
  CcxtVenue,
  InsufficientFundsError,
  InvalidOrderError,
  NotSupportedError,
  OrderNotFoundError,
  VenueNetworkError,
  VenueRateLimitError,
  VenueUnavailableError,
  precisionStep,
  translateCcxtError,
} from '../src/live';
import { SPOT_EXCHANGE_INFO, fakeHttp, type Route } from './conformance/swap-fakes';

/** Recorded-style Binance spot responses; nothing here touches the internet. */
const ORDER = {
  symbol: 'BTCUSDT',
  orderId: 28457,
  orderListId: -1,
  clientOrderId: 'bot1-0001',
  transactTime: 1736942401000,
  price: '90000.00000000',
  origQty: '0.01000000',
  executedQty: '0.00000000',
  cummulativeQuoteQty: '0.00000000',
  status: 'NEW',
  timeInForce: 'GTC',
  type: 'LIMIT',
  side: 'BUY',
  workingTime: 1736942401000,
  fills: [],
  selfTradePreventionMode: 'EXPIRE_MAKER',
};

/**
 * Order 28457 as Binance's order queries return it (GET /api/v3/order, and each element of
 * GET /api/v3/allOrders: https://developers.binance.com/docs/binance-spot-api-docs/rest-api/trading-endpoints#all-orders-user_data):
 * filled at 90,000 USDT for 900 USDT.
 */
const QUERIED_FILLED = {
  symbol: 'BTCUSDT',
  orderId: 28457,
  orderListId: -1,
  clientOrderId: 'bot1-0001',
  price: '90000.00000000',
  origQty: '0.01000000',
  executedQty: '0.01000000',
  cummulativeQuoteQty: '900.00000000',
  status: 'FILLED',
  timeInForce: 'GTC',
  type: 'LIMIT',
  side: 'BUY',
  stopPrice: '0.00000000',
  icebergQty: '0.00000000',
  time: 1736942401000,
  updateTime: 1736942500000,
  isWorking: true,
  workingTime: 1736942401000,
  origQuoteOrderQty: '0.00000000',
  selfTradePreventionMode: 'EXPIRE_MAKER',
};

/**
 * A trade of order 28457 as GET /api/v3/myTrades lists it (https://developers.binance.com/docs/
 * binance-spot-api-docs/rest-api/account-endpoints#account-trade-list-user_data): a buy pays its
 * commission in the base asset, 0.1 % of `qty` (0.005 BTC → 0.000005 BTC). The order queries above have
 * no commission field at all.
 */
const trade28457 = (id: number, qty: string, commission: string) => ({
  symbol: 'BTCUSDT',
  id,
  orderId: 28457,
  orderListId: -1,
  price: '90000.00000000',
  qty,
  quoteQty: String(Number(qty) * 90_000),
  commission,
  commissionAsset: 'BTC',
  time: 1736942450000 + id,
  isBuyer: true,
  isMaker: true,
  isBestMatch: true,
});

function fakeBinance(extra: Route = () => undefined) {
  return fakeHttp((url, method, body) => {
    if (url.hostname !== 'api.binance.com') throw new Error(`unexpected host ${url.hostname}`);
    const fromTest = extra(url, method, body);
    if (fromTest) return fromTest;
    const p = url.pathname;
    if (p === '/api/v3/exchangeInfo') return { body: SPOT_EXCHANGE_INFO };
    if (p === '/api/v3/ticker/24hr')
      return {
        body: {
          symbol: 'BTCUSDT',
          priceChange: '-1200.00',
          priceChangePercent: '-1.250',
          weightedAvgPrice: '95500.00',
          prevClosePrice: '96200.00',
          lastPrice: '95000.00',
          lastQty: '0.01',
          bidPrice: '94999.99',
          bidQty: '1.2',
          askPrice: '95000.01',
          askQty: '0.8',
          openPrice: '96200.00',
          highPrice: '97000.00',
          lowPrice: '94000.00',
          volume: '12000.5',
          quoteVolume: '1146000000.0',
          openTime: 1736856000000,
          closeTime: 1736942400000,
          firstId: 1,
          lastId: 2,
          count: 2,
        },
      };
    if (p === '/api/v3/depth')
      return {
        body: {
          lastUpdateId: 1,
          bids: [
            ['94999.99', '1.20'],
            ['94999.50', '0.50'],
          ],
          asks: [
            ['95000.01', '0.80'],
            ['95001.00', '2.00'],
          ],
        },
      };
    if (p === '/api/v3/klines')
      return {
        body: [
          [
            1736942340000,
            '94990.00',
            '95010.00',
            '94980.00',
            '95000.00',
            '12.5',
            1736942399999,
            '1187500',
            100,
            '6',
            '570000',
            '0',
          ],
        ],
      };
    if (p === '/api/v3/account')
      return {
        body: {
          makerCommission: 10,
          takerCommission: 10,
          canTrade: true,
          canWithdraw: false,
          canDeposit: true,
          updateTime: 1736942400000,
          accountType: 'SPOT',
          balances: [
            { asset: 'BTC', free: '0.50000000', locked: '0.10000000' },
            { asset: 'USDT', free: '1000.00000000', locked: '0.00000000' },
          ],
          permissions: ['SPOT'],
        },
      };
    if (p === '/api/v3/order' && method === 'POST') return { body: ORDER };
    if (p === '/api/v3/order' && method === 'GET') {
      const cid = url.searchParams.get('origClientOrderId');
      if (cid && cid !== 'bot1-0001')
        return { status: 400, body: { code: -2013, msg: 'Order does not exist.' } };
      return {
        body: {
          ...ORDER,
          status: 'FILLED',
          executedQty: '0.01000000',
          cummulativeQuoteQty: '900.00000000',
          updateTime: 1736942500000,
        },
      };
    }
    if (p === '/api/v3/order' && method === 'DELETE') return { body: { ...ORDER, status: 'CANCELED' } };
    if (p === '/api/v3/openOrders') return { body: [ORDER] };
    // Every order of the symbol, open and finished (the lists a not-found lookup is checked against).
    if (p === '/api/v3/allOrders') return { body: [QUERIED_FILLED] };
    if (p === '/api/v3/myTrades')
      return { body: [trade28457(1, '0.00500000', '0.00000500'), trade28457(2, '0.00500000', '0.00000500')] };
    if (p === '/sapi/v1/account/apiRestrictions')
      return {
        body: {
          ipRestrict: false,
          createTime: 1,
          enableWithdrawals: false,
          enableSpotAndMarginTrading: true,
          enableReading: true,
        },
      };
    return undefined;
  });
}

function venue(extra?: Route, keys = true) {
  const fake = fakeBinance(extra);
  const v = new CcxtVenue({
    exchange: 'binance',
    ...(keys ? { apiKey: 'k'.repeat(64), secret: 's'.repeat(64) } : {}),
    fetchImplementation: fake.fetchImplementation,
  });
  return { v, calls: fake.calls };
}

describe('CcxtVenue (Binance, recorded responses)', () => {
  it('converts markets: tick-size precision, minimum amount and cost, fees', async () => {
    const { v } = venue(undefined, false);
    const markets = await v.loadMarkets();
    expect(markets['BTC/USDT']).toEqual({
      symbol: 'BTC/USDT',
      base: 'BTC',
      quote: 'USDT',
      active: true,
      amountStep: 0.00001,
      priceStep: 0.01,
      minAmount: 0.00001,
      minCost: 5,
      taker: 0.001,
      maker: 0.001,
    });
    expect(precisionStep(2, 2)).toBe(0.01); // DECIMAL_PLACES
    expect(precisionStep(0.5, 4)).toBe(0.5); // TICK_SIZE
  });

  it('reads public ticker, book and candles without keys', async () => {
    const { v } = venue(undefined, false);
    expect(await v.fetchTicker('BTC/USDT')).toMatchObject({
      last: 95000,
      bid: 94999.99,
      ask: 95000.01,
      percentage: -1.25,
    });
    const book = await v.fetchOrderBook('BTC/USDT', 10);
    expect(book.bids[0]).toEqual([94999.99, 1.2]);
    expect(book.asks[1]).toEqual([95001, 2]);
    expect(await v.fetchOHLCV('BTC/USDT', '1m')).toEqual([[1736942340000, 94990, 95010, 94980, 95000, 12.5]]);
    await expect(v.fetchBalance()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(v.fetchTicker('NOPE/USDT')).rejects.toBeInstanceOf(InvalidOrderError);
  });

  it('fetches the balance', async () => {
    const { v } = venue();
    const b = await v.fetchBalance();
    expect(b.BTC).toEqual({ free: 0.5, used: 0.1, total: 0.6 });
    expect(b.USDT).toEqual({ free: 1000, used: 0, total: 1000 });
  });

  it('creates a limit order with the client order id, rounded to the market precision', async () => {
    const { v, calls } = venue();
    const o = await v.createOrder({
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.010004,
      price: 90000.004,
      clientOrderId: 'bot1-0001',
    });
    expect(o).toMatchObject({
      id: '28457',
      clientOrderId: 'bot1-0001',
      status: 'open',
      amount: 0.01,
      price: 90000,
      side: 'buy',
      type: 'limit',
    });
    const post = calls.find((c) => c.method === 'POST' && c.url.pathname === '/api/v3/order');
    const sent = new URLSearchParams(post!.body || post!.url.search);
    expect(sent.get('newClientOrderId')).toBe('bot1-0001');
    expect(sent.get('quantity')).toBe('0.01');
    expect(sent.get('price')).toBe('90000');
  });

  it('refuses below-minimum orders before calling the exchange', async () => {
    const { v, calls } = venue();
    await expect(
      v.createOrder({
        symbol: 'BTC/USDT',
        side: 'buy',
        type: 'limit',
        amount: 0.00002,
        price: 90000,
        clientOrderId: 'x',
      }),
    ).rejects.toMatchObject({ reason: 'min_cost' });
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('fetches, cancels and looks orders up by client id', async () => {
    const { v, calls } = venue();
    expect(await v.fetchOrder('28457', 'BTC/USDT')).toMatchObject({
      status: 'closed',
      filled: 0.01,
      cost: 900,
      // Not in the order query: the two trades' commission, 0.000005 + 0.000005 BTC (exchanges/fees.ts).
      fee: { cost: 0.00001, currency: 'BTC' },
    });
    expect(calls.filter((c) => c.url.pathname === '/api/v3/myTrades')).toHaveLength(1);
    expect(await v.cancelOrder('28457', 'BTC/USDT')).toMatchObject({ status: 'canceled' });
    expect(await v.fetchOpenOrders('BTC/USDT')).toHaveLength(1);
    const found = await v.fetchOrderByClientId('bot1-0001', 'BTC/USDT');
    expect(found).toMatchObject({ id: '28457', clientOrderId: 'bot1-0001' });
    expect(calls.some((c) => c.url.searchParams.get('origClientOrderId') === 'bot1-0001')).toBe(true);
    expect(await v.fetchOrderByClientId('bot1-9999', 'BTC/USDT')).toBeNull();
  });

  it('a fee that cannot be read: a create still answers with its order; the poll waits a round, then pushes it with its fee', async () => {
    let tradesDown = true;
    let state: 'open' | 'filled' = 'open';
    const fake = fakeBinance((url, method, body) => {
      if (url.pathname === '/api/v3/myTrades' && tradesDown)
        return { status: 503, body: { code: -1001, msg: 'Service Unavailable.' } };
      // A market order filled at once whose reply has no `fills` (newOrderRespType RESULT).
      if (url.pathname === '/api/v3/order' && method === 'POST' && `${url.search}${body}`.includes('MARKET'))
        return { body: { ...QUERIED_FILLED, orderId: 28458, clientOrderId: 'bot1-0002', type: 'MARKET' } };
      if (url.pathname === '/api/v3/openOrders') return { body: state === 'open' ? [ORDER] : [] };
      if (url.pathname === '/api/v3/order' && method === 'GET' && state === 'open') return { body: ORDER };
      return undefined;
    });
    const v = new CcxtVenue({
      exchange: 'binance',
      apiKey: 'k'.repeat(64),
      secret: 's'.repeat(64),
      fetchImplementation: fake.fetchImplementation,
      orderPollMs: 60_000,
    });
    // Placed and filled: never turned into an error (a resend would place it twice), reported without fee.
    const market = await v.createOrder({
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'market',
      amount: 0.01,
      clientOrderId: 'bot1-0002',
    });
    expect(market).toMatchObject({ id: '28458', status: 'closed', filled: 0.01, fee: null });
    const pushed: Order[] = [];
    const off = v.onOrderUpdate((o) => pushed.push(o));
    await v.createOrder({
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: 90000,
      clientOrderId: 'bot1-0001',
    });
    state = 'filled';
    await v.pollOrders(); // filled, but its trades cannot be read: not pushed yet
    expect(pushed).toHaveLength(0);
    tradesDown = false;
    await v.pollOrders();
    expect(pushed).toHaveLength(1);
    expect(pushed[0]).toMatchObject({ status: 'closed', fee: { cost: 0.00001, currency: 'BTC' } });
    off();
    await v.close();
  });

  it('polls the orders it placed while open and pushes a fill made on the exchange', async () => {
    // The exchange: the order rests (open, then half filled) until `state` says it filled.
    let state: 'open' | 'half' | 'filled' = 'open';
    const half = {
      ...ORDER,
      status: 'PARTIALLY_FILLED',
      executedQty: '0.00500000',
      cummulativeQuoteQty: '450',
    };
    const fake = fakeBinance((url, method) => {
      if (url.pathname === '/api/v3/openOrders')
        return { body: state === 'filled' ? [] : [state === 'half' ? half : ORDER] };
      if (url.pathname === '/api/v3/order' && method === 'GET' && state !== 'filled') return { body: ORDER };
      // The trades so far: one of 0.005 while half filled, both once filled.
      if (url.pathname === '/api/v3/myTrades')
        return {
          body: [
            trade28457(1, '0.00500000', '0.00000500'),
            ...(state === 'filled' ? [trade28457(2, '0.00500000', '0.00000500')] : []),
          ],
        };
      return undefined;
    });
    const v = new CcxtVenue({
      exchange: 'binance',
      apiKey: 'k'.repeat(64),
      secret: 's'.repeat(64),
      fetchImplementation: fake.fetchImplementation,
      orderPollMs: 60_000, // rounds are run by hand below
    });
    const pushed: Order[] = [];
    const off = v.onOrderUpdate((o) => pushed.push(o));
    const placed = await v.createOrder({
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: 90000,
      clientOrderId: 'bot1-0001',
    });
    expect(placed.status).toBe('open');

    await v.pollOrders(); // still open, nothing filled: nothing pushed
    expect(pushed).toHaveLength(0);
    state = 'half';
    await v.pollOrders();
    expect(pushed).toHaveLength(1);
    expect(pushed[0]).toMatchObject({ clientOrderId: 'bot1-0001', status: 'open', filled: 0.005 });
    // The half's commission; then the whole order's (0.00001 BTC), not 0.000005 added to it again.
    expect(pushed[0]!.fee).toEqual({ cost: 0.000005, currency: 'BTC' });
    state = 'filled';
    await v.pollOrders(); // gone from the open orders: read once, pushed filled, no longer watched
    expect(pushed).toHaveLength(2);
    expect(pushed[1]).toMatchObject({
      clientOrderId: 'bot1-0001',
      status: 'closed',
      filled: 0.01,
      cost: 900,
      fee: { cost: 0.00001, currency: 'BTC' },
    });
    const before = fake.calls.length;
    await v.pollOrders();
    expect(fake.calls.length).toBe(before); // nothing left to ask about
    off();
    await v.close();
  });

  it('translates -2010 insufficient balance into InsufficientFundsError', async () => {
    const { v } = venue((url, method) =>
      url.pathname === '/api/v3/order' && method === 'POST'
        ? {
            status: 400,
            body: { code: -2010, msg: 'Account has insufficient balance for requested action.' },
          }
        : undefined,
    );
    const err = await v
      .createOrder({
        symbol: 'BTC/USDT',
        side: 'buy',
        type: 'limit',
        amount: 1,
        price: 90000,
        clientOrderId: 'y',
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientFundsError);
    expect((err as InsufficientFundsError).action).toBe('wait_funds');
  });

  it('translates -2015 into AuthenticationError (reconnect)', async () => {
    const { v } = venue((url) =>
      url.pathname === '/api/v3/account'
        ? { status: 401, body: { code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' } }
        : undefined,
    );
    const err = await v.fetchBalance().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as AuthenticationError).action).toBe('reconnect');
  });

  it('translates a filter failure, order-not-found, rate limits, maintenance and network failures', async () => {
    const notional = venue((url, method) =>
      url.pathname === '/api/v3/order' && method === 'POST'
        ? { status: 400, body: { code: -1013, msg: 'Filter failure: NOTIONAL' } }
        : undefined,
    ).v;
    await expect(
      notional.createOrder({
        symbol: 'BTC/USDT',
        side: 'buy',
        type: 'limit',
        amount: 0.01,
        price: 90000,
        clientOrderId: 'z',
      }),
    ).rejects.toMatchObject({ name: 'InvalidOrderError', reason: 'min_cost' });

    const missing = venue((url, method) =>
      url.pathname === '/api/v3/order' && method === 'DELETE'
        ? { status: 400, body: { code: -2011, msg: 'Unknown order sent.' } }
        : undefined,
    ).v;
    await expect(missing.cancelOrder('1', 'BTC/USDT')).rejects.toBeInstanceOf(OrderNotFoundError);

    const limited = venue((url) =>
      url.pathname === '/api/v3/depth'
        ? { status: 429, body: { code: -1003, msg: 'Too many requests' } }
        : undefined,
    ).v;
    await expect(limited.fetchOrderBook('BTC/USDT')).rejects.toBeInstanceOf(VenueRateLimitError);

    const down = venue((url) =>
      url.pathname === '/api/v3/depth' ? { status: 503, body: 'Service Unavailable' } : undefined,
    ).v;
    await expect(down.fetchOrderBook('BTC/USDT')).rejects.toSatisfy(
      (e) => e instanceof VenueUnavailableError || e instanceof VenueNetworkError,
    );

    const offline = new CcxtVenue({
      exchange: 'binance',
      fetchImplementation: () => Promise.reject(new TypeError('fetch failed')),
    });
    const err = await offline.loadMarkets().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VenueNetworkError);
    expect((err as VenueNetworkError).action).toBe('retry');
  });

  it('reports whether the key can withdraw (Binance API restrictions)', async () => {
    expect(await venue().v.checkWithdrawPermission()).toBe(false);
    const risky = venue((url) =>
      url.pathname === '/sapi/v1/account/apiRestrictions'
        ? { body: { enableWithdrawals: true, enableReading: true } }
        : undefined,
    ).v;
    expect(await risky.checkWithdrawPermission()).toBe(true);
  });

  it('maps every exchange key; closed exchanges answer NotSupportedError; bybit_testnet is sandboxed', () => {
    for (const key of ['bittrex', 'zb', 'ascendex']) {
      expect(() => new CcxtVenue({ exchange: key })).toThrow(NotSupportedError);
      expect(() => new CcxtVenue({ exchange: key })).toThrow(/no longer available/);
    }
    expect(() => new CcxtVenue({ exchange: 'nope' })).toThrow(NotSupportedError);
    const gate = new CcxtVenue({ exchange: 'gateio' });
    expect(gate.ccxt.id).toBe('gate');
    const testnet = new CcxtVenue({ exchange: 'bybit_testnet' });
    expect(testnet.ccxt.id).toBe('bybit');
    expect(testnet.ccxt.isSandboxModeEnabled).toBe(true);
    for (const key of [
      'binance',
      'bybit',
      'coinbaseexchange',
      'okx',
      'bitget',
      'mexc',
      'kucoin',
      'bingx',
      'kraken',
      'bitfinex',
      'phemex',
      'bitstamp',
      'poloniex',
      'lbank',
      'hitbtc',
    ]) {
      expect(new CcxtVenue({ exchange: key }).kind).toBe('live');
    }
  });
});

describe('translateCcxtError: Binance -2015 after a key has worked', () => {
  it('is a refused key (bots pause and try it again), not a rate limit to retry blindly', async () => {
    const ccxtLib = (await import('ccxt')).default;
    const body = '{"code":-2015,"msg":"Invalid API-key, IP, or permissions for action."}';
    expect(translateCcxtError(new ccxtLib.DDoSProtection(`binance ${body}`), 'binance')).toBeInstanceOf(
      AuthenticationError,
    );
    expect(
      translateCcxtError(new ccxtLib.DDoSProtection('binance 429 Too Many Requests'), 'binance'),
    ).toBeInstanceOf(VenueRateLimitError);
  });
});
