import { EXCHANGES } from '@bytx/contract';
import ccxt from 'ccxt';
import { describe, expect, it } from 'vitest';
import { LOOKUP_RULES, lookupRule } from '../../src/exchanges/lookups';
import { CcxtVenue, LOOKUP_MISSES_MAX, VenueNetworkError, type Order } from '../../src/live';
import { SPOT_EXCHANGE_INFO, fakeHttp } from './swap-fakes';

/**
 * Order lookups replayed at ccxt's HTTP boundary with Bybit v5 payloads (the shapes of Bybit's API
 * documentation, https://bybit-exchange.github.io/docs/v5/order/open-order and /order-list, and of the
 * responses recorded in ccxt's bybit.ts). Nothing here touches the internet.
 */

type Reply = { status?: number; body: unknown };
type Route = (url: URL, method: string) => Reply | undefined;

const ok = (result: unknown): Reply => ({
  body: { retCode: 0, retMsg: 'OK', result, retExtInfo: {}, time: 1757837620000 },
});

/** GET /v5/market/instruments-info?category=spot (Bybit docs example, BTCUSDT). */
const INSTRUMENTS = ok({
  category: 'spot',
  list: [
    {
      symbol: 'BTCUSDT',
      baseCoin: 'BTC',
      quoteCoin: 'USDT',
      innovation: '0',
      status: 'Trading',
      marginTrading: 'both',
      stTag: '0',
      lotSizeFilter: {
        basePrecision: '0.000001',
        quotePrecision: '0.00000001',
        minOrderQty: '0.000048',
        maxOrderQty: '71.73956243',
        minOrderAmt: '1',
        maxOrderAmt: '2000000',
      },
      priceFilter: { tickSize: '0.01' },
      riskParameters: { priceLimitRatioX: '0.01', priceLimitRatioY: '0.02' },
    },
  ],
});

/**
 * GET /v5/asset/coin/query-info (ccxt loads it with the markets when keys are set; rows as recorded in
 * ccxt's test/static/response/bybit.json, trimmed to two chains).
 */
const COINS = {
  body: {
    retCode: 0,
    retMsg: 'success',
    result: {
      rows: [
        {
          name: 'USDT',
          coin: 'USDT',
          remainAmount: '50000000000',
          chains: [
            {
              chainType: 'Ethereum',
              confirmation: '6',
              withdrawFee: '8',
              depositMin: '0',
              withdrawMin: '10',
              chain: 'ETH',
              chainDeposit: '1',
              chainWithdraw: '1',
              minAccuracy: '4',
              withdrawPercentageFee: '0',
              contractAddress: '0xdac17f958d2ee523a2206206994597c13d831ec7',
            },
            {
              chainType: 'TRC20',
              confirmation: '20',
              withdrawFee: '1.6',
              depositMin: '0',
              withdrawMin: '2.6',
              chain: 'TRX',
              chainDeposit: '1',
              chainWithdraw: '1',
              minAccuracy: '4',
              withdrawPercentageFee: '0',
              contractAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
            },
          ],
        },
      ],
    },
    retExtInfo: {},
    time: 1736942400000,
  },
};

const TP_ID = '2044963937224410624';
const TP_CID = 'b3f2a8c1e7b4d4e2a9c1f17';

/** One v5 order row (fields as /v5/order/realtime and /v5/order/history list them). */
function orderRow(status: 'New' | 'Filled', extra: Record<string, unknown> = {}): Record<string, unknown> {
  const filled = status === 'Filled';
  return {
    symbol: 'BTCUSDT',
    orderType: 'Limit',
    orderLinkId: TP_CID,
    slLimitPrice: '0',
    orderId: TP_ID,
    cancelType: 'UNKNOWN',
    avgPrice: filled ? '101000' : '',
    stopOrderType: '',
    lastPriceOnCreated: '100010.5',
    orderStatus: status,
    createType: 'CreateByUser',
    takeProfit: '',
    cumExecValue: filled ? '1010' : '0',
    tpslMode: '',
    smpType: 'None',
    triggerDirection: 0,
    blockTradeId: '',
    cumFeeDetail: filled ? { USDT: '1.01' } : {},
    rejectReason: 'EC_NoError',
    isLeverage: '0',
    price: '101000',
    orderIv: '',
    createdTime: '1757837618905',
    tpTriggerBy: '',
    positionIdx: 0,
    timeInForce: 'GTC',
    leavesValue: filled ? '0' : '1010',
    updatedTime: filled ? '1757841218909' : '1757837618909',
    side: 'Sell',
    smpGroup: 0,
    triggerPrice: '',
    tpLimitPrice: '0',
    cumExecFee: filled ? '1.01' : '0',
    slTriggerBy: '',
    leavesQty: filled ? '0' : '0.01',
    closeOnTrigger: false,
    placeType: '',
    cumExecQty: filled ? '0.01' : '0',
    reduceOnly: false,
    qty: '0.01',
    stopLoss: '',
    smpOrderId: '',
    triggerBy: '',
    extraFees: '',
    ...extra,
  };
}

const list = (rows: unknown[]) => ok({ category: 'spot', nextPageCursor: '', list: rows });

function fakeBybit(route: Route) {
  const calls: URL[] = [];
  const fetchImplementation = (u: string, init: Record<string, unknown>): Promise<Response> => {
    const url = new URL(u);
    const method = typeof init.method === 'string' ? init.method : 'GET';
    calls.push(url);
    const p = url.pathname;
    const r: Reply | undefined =
      route(url, method) ??
      (p === '/v5/market/instruments-info' && url.searchParams.get('category') === 'spot'
        ? INSTRUMENTS
        : p === '/v5/asset/coin/query-info'
          ? COINS
          : p === '/v5/user/query-api'
            ? ok({
                id: '1',
                note: 'bot',
                readOnly: 0,
                unified: 0,
                uta: 1,
                permissions: { Spot: ['SpotTrade'] },
              })
            : p === '/v5/account/info'
              ? ok({ unifiedMarginStatus: 4, marginMode: 'REGULAR_MARGIN', isMasterTrader: false })
              : undefined);
    if (!r)
      return Promise.resolve(
        new Response(JSON.stringify({ retCode: 10001, retMsg: `no stub ${p}` }), { status: 404 }),
      );
    return Promise.resolve(
      new Response(JSON.stringify(r.body), {
        status: r.status ?? 200,
        headers: { 'content-type': 'application/json' },
      }),
    );
  };
  const venue = new CcxtVenue({
    exchange: 'bybit',
    apiKey: 'k',
    secret: 's',
    fetchImplementation,
    orderPollMs: 3_600_000,
  });
  return { venue, calls };
}

const is = (u: URL, path: string, param?: [string, string]) =>
  u.pathname === path && (!param || u.searchParams.get(param[0]) === param[1]);

describe('order lookups: the table covers the catalogue', () => {
  it('has a rule with a documentation source for every exchange ccxt supports (17 keys, 16 ccxt ids)', () => {
    const ids = [...new Set(EXCHANGES.flatMap((e) => (e.ccxtId ? [e.ccxtId] : [])))];
    expect(EXCHANGES.filter((e) => e.ccxtId).length).toBe(17);
    for (const id of ids) {
      const rule = LOOKUP_RULES[id];
      expect(rule, id).toBeDefined();
      expect(rule!.source, id).toMatch(/^https:\/\//);
    }
    // Bybit: never ccxt's plain fetchOrder (refused on unified accounts without `acknowledged`).
    expect(lookupRule('bybit').byId.kind).toBe('openThenHistory');
    expect(lookupRule('bybit').byClientId.kind).toBe('bybitLink');
  });
});

describe('order lookups on a Bybit unified account (v5 payloads)', () => {
  it("ccxt's own fetchOrder is refused on a unified account: why the venue does not use it", async () => {
    const { venue } = fakeBybit(() => undefined);
    await venue.loadMarkets();
    await expect(venue.ccxt.fetchOrder(TP_ID, 'BTC/USDT')).rejects.toBeInstanceOf(ccxt.ArgumentsRequired);
  });

  it('a resting take profit that filled is reported filled, with filled, average and fee, within one poll', async () => {
    let filled = false;
    const { venue, calls } = fakeBybit((url, method) => {
      if (is(url, '/v5/order/create') && method === 'POST')
        return ok({ orderId: TP_ID, orderLinkId: TP_CID });
      if (is(url, '/v5/order/realtime')) {
        // Open orders: the TP while it rests; by its id after it filled: nothing (a server restart
        // empties the recent closed orders of unified accounts: "query through order history").
        if (url.searchParams.get('orderId') === TP_ID || filled) return list([]);
        return list([orderRow('New')]);
      }
      if (is(url, '/v5/order/history', ['orderId', TP_ID])) return list([orderRow('Filled')]);
      return undefined;
    });
    const updates: Order[] = [];
    venue.onOrderUpdate((o) => updates.push(o));
    const placed = await venue.createOrder({
      symbol: 'BTC/USDT',
      side: 'sell',
      type: 'limit',
      amount: 0.01,
      price: 101000,
      clientOrderId: TP_CID,
    });
    expect(placed).toMatchObject({ id: TP_ID, status: 'open', clientOrderId: TP_CID });
    filled = true;
    await venue.pollOrders();
    // Expected meaning: the TP sold 0.01 BTC at 101,000 USDT for 1,010 USDT, paying 1.01 USDT of fee.
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({
      id: TP_ID,
      clientOrderId: TP_CID,
      symbol: 'BTC/USDT',
      side: 'sell',
      status: 'closed',
      amount: 0.01,
      filled: 0.01,
      remaining: 0,
      average: 101000,
      cost: 1010,
      fee: { cost: 1.01, currency: 'USDT' },
    });
    expect(updates[0]!.lost).toBeUndefined();
    // No refused ccxt fetchOrder (it would have answered "acknowledged" and been retried forever).
    expect(calls.some((u) => is(u, '/v5/order/history', ['orderId', TP_ID]))).toBe(true);
    await venue.close();
  });

  it('after a timeout on create, the lookup by client id finds the order (orderLinkId)', async () => {
    const { venue, calls } = fakeBybit((url, method) => {
      if (is(url, '/v5/order/create') && method === 'POST') throw new TypeError('fetch failed');
      if (is(url, '/v5/order/realtime', ['orderLinkId', TP_CID])) return list([orderRow('New')]);
      return undefined;
    });
    await expect(
      venue.createOrder({
        symbol: 'BTC/USDT',
        side: 'sell',
        type: 'limit',
        amount: 0.01,
        price: 101000,
        clientOrderId: TP_CID,
      }),
    ).rejects.toBeInstanceOf(VenueNetworkError);
    const found = await venue.fetchOrderByClientId(TP_CID, 'BTC/USDT');
    // Expected meaning: the order reached Bybit and rests there, nothing filled.
    expect(found).toMatchObject({
      id: TP_ID,
      clientOrderId: TP_CID,
      status: 'open',
      filled: 0,
      amount: 0.01,
    });
    expect(calls.filter((u) => u.pathname === '/v5/order/create')).toHaveLength(1);
    await venue.close();
  });

  it('after a timeout on create, a client id Bybit filled meanwhile is found in the order history', async () => {
    const { venue } = fakeBybit((url) => {
      if (is(url, '/v5/order/realtime', ['orderLinkId', TP_CID])) return list([]);
      if (is(url, '/v5/order/history', ['orderLinkId', TP_CID])) return list([orderRow('Filled')]);
      return undefined;
    });
    const found = await venue.fetchOrderByClientId(TP_CID, 'BTC/USDT');
    expect(found).toMatchObject({ status: 'closed', filled: 0.01, average: 101000 });
    expect(found!.fee).toEqual({ cost: 1.01, currency: 'USDT' });
    expect(await venueWithNothing().fetchOrderByClientId('nobody-1', 'BTC/USDT')).toBeNull();
  });

  it(`an order Bybit no longer has is asked about ${LOOKUP_MISSES_MAX} times, then settled from the lists as lost`, async () => {
    // Accepted, then never listed again anywhere (as after an exchange-side purge).
    const { venue, calls } = fakeBybit((url, method) => {
      if (is(url, '/v5/order/create') && method === 'POST')
        return ok({ orderId: TP_ID, orderLinkId: TP_CID });
      if (is(url, '/v5/order/realtime')) return list([]);
      if (is(url, '/v5/order/history')) return list([]);
      return undefined;
    });
    const updates: Order[] = [];
    venue.onOrderUpdate((o) => updates.push(o));
    await venue.createOrder({
      symbol: 'BTC/USDT',
      side: 'sell',
      type: 'limit',
      amount: 0.01,
      price: 101000,
      clientOrderId: TP_CID,
    });
    for (let i = 1; i < LOOKUP_MISSES_MAX; i++) {
      await venue.pollOrders();
      expect(updates).toHaveLength(0);
    }
    await venue.pollOrders();
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({
      id: TP_ID,
      clientOrderId: TP_CID,
      status: 'canceled',
      filled: 0,
      lost: true,
    });
    // Forgotten: later polls ask nothing about it.
    const before = calls.length;
    await venue.pollOrders();
    expect(calls.length).toBe(before);
    await venue.close();
  });
});

function venueWithNothing(): CcxtVenue {
  return fakeBybit((url) =>
    is(url, '/v5/order/realtime') || is(url, '/v5/order/history') ? list([]) : undefined,
  ).venue;
}

// --- Binance spot: a -2013 is not final ---------------------------------------------------------

const BN_ID = 4837201;
const BN_CID = 'g7c1d2e3f4a5b6c7d8e9f0a1';

/**
 * The resting order as Binance's order queries show it (GET /api/v3/order, and each element of
 * GET /api/v3/openOrders and /api/v3/allOrders): a limit buy of 0.01 BTC at 90,000 USDT, nothing filled.
 * https://developers.binance.com/docs/binance-spot-api-docs/rest-api/trading-endpoints#query-order-user_data
 */
const BN_OPEN = {
  symbol: 'BTCUSDT',
  orderId: BN_ID,
  orderListId: -1,
  clientOrderId: BN_CID,
  price: '90000.00000000',
  origQty: '0.01000000',
  executedQty: '0.00000000',
  cummulativeQuoteQty: '0.00000000',
  status: 'NEW',
  timeInForce: 'GTC',
  type: 'LIMIT',
  side: 'BUY',
  stopPrice: '0.00000000',
  icebergQty: '0.00000000',
  time: 1736942401000,
  updateTime: 1736942401000,
  isWorking: true,
  workingTime: 1736942401000,
  origQuoteOrderQty: '0.00000000',
  selfTradePreventionMode: 'EXPIRE_MAKER',
};

/** Binance spot whose GET /api/v3/order answers -2013 for every order; the lists as given. */
function fakeBinanceLagging(openOrders: unknown[], allOrders: unknown[]) {
  return fakeHttp((url, method) => {
    const p = url.pathname;
    if (p === '/api/v3/exchangeInfo') return { body: SPOT_EXCHANGE_INFO };
    if (p === '/api/v3/order' && method === 'GET')
      return { status: 400, body: { code: -2013, msg: 'Order does not exist.' } };
    if (p === '/api/v3/openOrders') return { body: openOrders };
    if (p === '/api/v3/allOrders') return { body: allOrders };
    return undefined;
  });
}

const binanceVenue = (fetchImplementation: ReturnType<typeof fakeHttp>['fetchImplementation']) =>
  new CcxtVenue({
    exchange: 'binance',
    apiKey: 'k'.repeat(64),
    secret: 's'.repeat(64),
    fetchImplementation,
    orderPollMs: 3_600_000,
  });

describe('order lookups on Binance spot: -2013 is checked against the lists', () => {
  it('an order GET /api/v3/order says does not exist but GET /api/v3/openOrders lists is open, not lost', async () => {
    // Binance's reads can lag its writes: the order query answers -2013 "Order does not exist" for an
    // order that rests on the book (https://developers.binance.com/docs/binance-spot-api-docs/errors).
    const fake = fakeBinanceLagging([BN_OPEN], [BN_OPEN]);
    const venue = binanceVenue(fake.fetchImplementation);
    const found = await venue.fetchOrderByClientId(BN_CID, 'BTC/USDT');
    // Expected meaning: the buy of 0.01 BTC at 90,000 USDT rests open with nothing filled.
    expect(found).toMatchObject({
      id: String(BN_ID),
      clientOrderId: BN_CID,
      status: 'open',
      amount: 0.01,
      filled: 0,
      price: 90000,
    });
    expect(found!.lost).toBeUndefined();
    const asked = fake.calls.filter((c) => c.url.pathname === '/api/v3/order' && c.method === 'GET');
    expect(asked.map((c) => c.url.searchParams.get('origClientOrderId'))).toEqual([BN_CID]);
    expect(fake.calls.some((c) => c.url.pathname === '/api/v3/openOrders')).toBe(true);
    expect(fake.misses).toEqual([]);
    await venue.close();
  });

  it('a -2013 for an order in neither list (GET /api/v3/openOrders nor /api/v3/allOrders) is none', async () => {
    const fake = fakeBinanceLagging([], [{ ...BN_OPEN, clientOrderId: 'someone-else', orderId: 1 }]);
    const venue = binanceVenue(fake.fetchImplementation);
    expect(await venue.fetchOrderByClientId(BN_CID, 'BTC/USDT')).toBeNull();
    expect(fake.calls.some((c) => c.url.pathname === '/api/v3/allOrders')).toBe(true);
    expect(fake.misses).toEqual([]);
    await venue.close();
  });
});
